import type { ReceivedPost } from './recording-receiver';

/**
 * The ledger's judgement of the per-endpoint sequence numbers (issue 32 item 3, ADR 0045): for
 * each endpoint, the numbers the receivers accepted are exactly 1..n, n being the (event,
 * endpoint) pairs due to it, one number per event and the same on each of its attempts; and the
 * log (the `deliveries` rows, the events and attempt rows of each delivery, the claims and the
 * counter) numbers every pair as its receiver saw it. Kept apart from the ledger's queries so
 * that it can be tried on made-up runs: a check that never fails proves nothing.
 */

/** A delivery as its `deliveries` row numbers it. */
export interface NumberedDelivery {
  deliveryId: string;
  eventId: string;
  /** The endpoint's name in the scenario. */
  endpoint: string;
  sequence: number | null;
}

/** A number the log holds elsewhere for a delivery: in one of its events or attempt rows. */
export interface NumberRecordedWith {
  deliveryId: string;
  /** For a person: `delivery.attempted v2`, `delivery_attempts #2`. */
  where: string;
  sequence: number | null;
}

/** A row of `delivery_numbers`: the number an (event, endpoint) claimed before its first POST. */
export interface NumberClaim {
  eventId: string;
  endpoint: string;
  sequence: number;
}

export interface SequenceLedgerInput {
  /** Endpoint name → the events of the known set due to it (every endpoint, even with none). */
  due: ReadonlyMap<string, readonly string[]>;
  posts: readonly Pick<ReceivedPost, 'endpoint' | 'eventId' | 'attempt' | 'sequence' | 'outcome'>[];
  /** Every `deliveries` row (test deliveries included: they must carry no number). */
  deliveries: readonly NumberedDelivery[];
  recordedWith: readonly NumberRecordedWith[];
  claims: readonly NumberClaim[];
  /** Endpoint name → `endpoint_sequences.last`. */
  counters: ReadonlyMap<string, number>;
}

export const RECEIVER_FINDINGS = [
  'without a number',
  'changed between attempts',
  'shared by events',
  'gap',
  'beyond n',
] as const;
export const LOG_FINDINGS = [
  'delivery without a number',
  'differs from the receiver',
  'gap in the log',
  'beyond n in the log',
  'shared in the log',
  'recorded with another number',
  'claim differs from the delivery',
  'counter is not n',
] as const;
export type ReceiverFindingKind = (typeof RECEIVER_FINDINGS)[number];
export type LogFindingKind = (typeof LOG_FINDINGS)[number];

export interface Finding<Kind extends string> {
  kind: Kind;
  endpoint: string;
  [detail: string]: unknown;
}

export interface SequenceFigures {
  /** Per endpoint: n, the highest number a receiver accepted, the highest in the log, the counter. */
  endpoints: Record<
    string,
    {
      due: number;
      highestAccepted: number | null;
      highestLogged: number | null;
      counter: number | null;
    }
  >;
  receivers: Record<ReceiverFindingKind, number>;
  log: Record<LogFindingKind, number>;
}

export interface SequenceJudgement {
  figures: SequenceFigures;
  receiverFindings: Finding<ReceiverFindingKind>[];
  logFindings: Finding<LogFindingKind>[];
}

/** X-SVC-Sequence as the engine must send it: a positive integer in decimal, nothing else. */
export function parseSequence(header: string | null): number | null {
  return header !== null && /^[1-9][0-9]{0,15}$/.test(header) ? Number(header) : null;
}

const pairKey = (eventId: string, endpoint: string) => `${eventId} ${endpoint}`;

function countBy<Kind extends string>(
  kinds: readonly Kind[],
  findings: Finding<Kind>[],
): Record<Kind, number> {
  const counts = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<Kind, number>;
  for (const finding of findings) {
    counts[finding.kind] += 1;
  }
  return counts;
}

/** The numbers of 1..n missing from `seen`, and those of `seen` outside 1..n. */
function againstOneToN(seen: Iterable<number>, n: number): { missing: number[]; beyond: number[] } {
  const numbers = new Set(seen);
  const missing: number[] = [];
  for (let k = 1; k <= n; k += 1) {
    if (!numbers.has(k)) {
      missing.push(k);
    }
  }
  return { missing, beyond: [...numbers].filter((k) => k > n).sort((a, b) => a - b) };
}

export function judgeSequenceNumbers(input: SequenceLedgerInput): SequenceJudgement {
  const duePairs = new Set(
    [...input.due].flatMap(([endpoint, events]) => events.map((event) => pairKey(event, endpoint))),
  );
  const dueCount = (endpoint: string) => input.due.get(endpoint)?.length ?? 0;
  const endpoints = new Set([
    ...input.due.keys(),
    ...input.posts.map((post) => post.endpoint),
    ...input.deliveries.map((delivery) => delivery.endpoint),
  ]);

  // --- what the receivers saw.
  const receiverFindings: Finding<ReceiverFindingKind>[] = [];
  /** Pair → the numbers its POSTs carried, each with the attempts that carried it. */
  const numbersOfPair = new Map<string, Map<number, { attempt: number; outcome: string }[]>>();
  /** Endpoint → number → the events whose POSTs carried it. */
  const eventsOfNumber = new Map<string, Map<number, Set<string>>>();
  const accepted = new Map<string, Set<number>>();
  for (const post of input.posts) {
    const sequence = parseSequence(post.sequence);
    if (sequence === null) {
      // A test event carries none, and a POST that was not due is the ledger's other finding.
      if (duePairs.has(pairKey(post.eventId, post.endpoint))) {
        receiverFindings.push({
          kind: 'without a number',
          endpoint: post.endpoint,
          event: post.eventId,
          attempt: post.attempt,
          header: post.sequence,
        });
      }
      continue;
    }
    const key = pairKey(post.eventId, post.endpoint);
    const ofPair = numbersOfPair.get(key) ?? new Map();
    numbersOfPair.set(key, ofPair);
    ofPair.set(sequence, ofPair.get(sequence) ?? []);
    ofPair.get(sequence)!.push({ attempt: post.attempt, outcome: post.outcome });
    const ofEndpoint = eventsOfNumber.get(post.endpoint) ?? new Map<number, Set<string>>();
    eventsOfNumber.set(post.endpoint, ofEndpoint);
    ofEndpoint.set(sequence, (ofEndpoint.get(sequence) ?? new Set()).add(post.eventId));
    if (post.outcome === 'accepted') {
      accepted.set(post.endpoint, (accepted.get(post.endpoint) ?? new Set()).add(sequence));
    }
  }
  for (const [key, numbers] of numbersOfPair) {
    if (numbers.size > 1) {
      const [event, endpoint] = key.split(' ');
      receiverFindings.push({
        kind: 'changed between attempts',
        endpoint,
        event,
        attempts: [...numbers]
          .flatMap(([sequence, posts]) => posts.map((post) => ({ ...post, sequence })))
          .sort((a, b) => a.attempt - b.attempt),
      });
    }
  }
  for (const [endpoint, numbers] of eventsOfNumber) {
    for (const [sequence, events] of numbers) {
      if (events.size > 1) {
        receiverFindings.push({
          kind: 'shared by events',
          endpoint,
          sequence,
          events: [...events],
        });
      }
    }
  }
  for (const endpoint of endpoints) {
    const n = dueCount(endpoint);
    const { missing } = againstOneToN(accepted.get(endpoint) ?? [], n);
    // Beyond n counts every POST's number, accepted or not: a number past n was handed out.
    const { beyond } = againstOneToN(eventsOfNumber.get(endpoint)?.keys() ?? [], n);
    missing.forEach((sequence) => receiverFindings.push({ kind: 'gap', endpoint, sequence, n }));
    beyond.forEach((sequence) =>
      receiverFindings.push({
        kind: 'beyond n',
        endpoint,
        sequence,
        n,
        events: [...eventsOfNumber.get(endpoint)!.get(sequence)!],
      }),
    );
  }

  // --- what the log holds.
  const logFindings: Finding<LogFindingKind>[] = [];
  const rowsOfNumber = new Map<string, Map<number, NumberedDelivery[]>>();
  const deliveryById = new Map(input.deliveries.map((delivery) => [delivery.deliveryId, delivery]));
  const deliveryOfPair = new Map(
    input.deliveries.map((delivery) => [pairKey(delivery.eventId, delivery.endpoint), delivery]),
  );
  for (const delivery of input.deliveries) {
    const key = pairKey(delivery.eventId, delivery.endpoint);
    if (delivery.sequence === null) {
      if (duePairs.has(key)) {
        logFindings.push({
          kind: 'delivery without a number',
          endpoint: delivery.endpoint,
          event: delivery.eventId,
          delivery: delivery.deliveryId,
        });
      }
      continue;
    }
    const ofEndpoint = rowsOfNumber.get(delivery.endpoint) ?? new Map();
    rowsOfNumber.set(delivery.endpoint, ofEndpoint);
    ofEndpoint.set(delivery.sequence, ofEndpoint.get(delivery.sequence) ?? []);
    ofEndpoint.get(delivery.sequence)!.push(delivery);
    const seenByReceiver = [...(numbersOfPair.get(key)?.keys() ?? [])];
    // A pair whose POSTs carried several numbers, or none, is the receivers' finding already.
    if (seenByReceiver.length === 1 && seenByReceiver[0] !== delivery.sequence) {
      logFindings.push({
        kind: 'differs from the receiver',
        endpoint: delivery.endpoint,
        event: delivery.eventId,
        delivery: delivery.deliveryId,
        log: delivery.sequence,
        receiver: seenByReceiver[0],
      });
    }
  }
  for (const endpoint of endpoints) {
    const n = dueCount(endpoint);
    const numbers = rowsOfNumber.get(endpoint) ?? new Map<number, NumberedDelivery[]>();
    const { missing, beyond } = againstOneToN(numbers.keys(), n);
    missing.forEach((sequence) =>
      logFindings.push({ kind: 'gap in the log', endpoint, sequence, n }),
    );
    beyond.forEach((sequence) =>
      logFindings.push({
        kind: 'beyond n in the log',
        endpoint,
        sequence,
        n,
        deliveries: numbers.get(sequence)!.map((delivery) => delivery.deliveryId),
      }),
    );
    for (const [sequence, rows] of numbers) {
      if (rows.length > 1) {
        logFindings.push({
          kind: 'shared in the log',
          endpoint,
          sequence,
          deliveries: rows.map((row) => ({ delivery: row.deliveryId, event: row.eventId })),
        });
      }
    }
  }
  for (const recorded of input.recordedWith) {
    const delivery = deliveryById.get(recorded.deliveryId);
    if (delivery && recorded.sequence !== delivery.sequence) {
      logFindings.push({
        kind: 'recorded with another number',
        endpoint: delivery.endpoint,
        delivery: delivery.deliveryId,
        where: recorded.where,
        sequence: recorded.sequence,
        row: delivery.sequence,
      });
    }
  }
  const claimsOfPair = new Map<string, number[]>();
  for (const claim of input.claims) {
    const key = pairKey(claim.eventId, claim.endpoint);
    claimsOfPair.set(key, claimsOfPair.get(key) ?? []);
    claimsOfPair.get(key)!.push(claim.sequence);
  }
  for (const key of new Set([...claimsOfPair.keys(), ...duePairs])) {
    const claims = claimsOfPair.get(key) ?? [];
    const delivery = deliveryOfPair.get(key);
    const [event, endpoint] = key.split(' ');
    if (claims.length !== 1 || claims[0] !== (delivery?.sequence ?? null)) {
      logFindings.push({
        kind: 'claim differs from the delivery',
        endpoint,
        event,
        claims,
        delivery: delivery?.sequence ?? null,
      });
    }
  }
  for (const endpoint of endpoints) {
    const n = dueCount(endpoint);
    const counter = input.counters.get(endpoint) ?? null;
    if (counter !== (n === 0 ? null : n)) {
      logFindings.push({ kind: 'counter is not n', endpoint, counter, n });
    }
  }

  const highest = (numbers: Iterable<number> | undefined) => {
    const all = [...(numbers ?? [])];
    return all.length === 0 ? null : Math.max(...all);
  };
  const figures: SequenceFigures = {
    endpoints: Object.fromEntries(
      [...endpoints].sort().map((endpoint) => [
        endpoint,
        {
          due: dueCount(endpoint),
          highestAccepted: highest(accepted.get(endpoint)),
          highestLogged: highest(rowsOfNumber.get(endpoint)?.keys()),
          counter: input.counters.get(endpoint) ?? null,
        },
      ]),
    ),
    receivers: countBy(RECEIVER_FINDINGS, receiverFindings),
    log: countBy(LOG_FINDINGS, logFindings),
  };
  return { figures, receiverFindings, logFindings };
}

/**
 * Findings in turn by kind (the first of each kind, then the second…), so that the few examples
 * a check shows cover every kind found rather than the first hundred gaps.
 */
export function alternatingKinds<Kind extends string>(findings: Finding<Kind>[]): Finding<Kind>[] {
  const byKind = new Map<Kind, Finding<Kind>[]>();
  for (const finding of findings) {
    byKind.set(finding.kind, byKind.get(finding.kind) ?? []);
    byKind.get(finding.kind)!.push(finding);
  }
  const ordered: Finding<Kind>[] = [];
  for (let i = 0; ordered.length < findings.length; i += 1) {
    for (const group of byKind.values()) {
      if (i < group.length) {
        ordered.push(group[i]);
      }
    }
  }
  return ordered;
}

/** `2 gap, 1 shared by events`: the counts of the kinds found. */
export function countsOfKinds(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
}

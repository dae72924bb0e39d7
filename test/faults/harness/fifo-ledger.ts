import type { ReceivedPost } from './recording-receiver';
import { Finding, parseSequence } from './sequence-ledger';

/**
 * The ledger's judgement of FIFO endpoints (issue 32 item 4, ADR 0045 "As built (FIFO
 * endpoints)"): such an endpoint gets its deliveries one at a time in `X-SVC-Sequence` order, the
 * next sent only once the one before has succeeded or been given up. Judged at the receiver alone,
 * POSTs taken in the order they arrived:
 *
 * - the first acceptance (2xx) of each number comes after the first acceptance of every lower
 *   number: the order of first acceptances is 1..n (**accepted out of order** otherwise);
 * - no number is passed by a higher one's acceptance while it was never accepted, unless the log
 *   gave it up (abandoned or cancelled: the queue moves on past it) (**passed while open**);
 * - no POST of a number arrives after a higher number was accepted (**sent after a later
 *   number**): the queue had moved past it. A re-send of a number already accepted, whose last
 *   accepted POST was cut off by a kill -9 (never recorded, in the ledger's crash window), is a
 *   duplicate the crash explains: counted apart, not a finding. A number given up is never sent
 *   again, so it may be missing from the order but never late in it;
 * - never two POSTs in flight at once (**two in flight**): one arriving before the one before it
 *   was answered. Unless the earlier one was cut off by a kill -9: its engine died with it in
 *   flight, its claim lapsed and another engine (or the restarted one) sent the head again before
 *   the receiver saw the connection close. Counted apart, as the ledger counts duplicates.
 *
 * Gaps in 1..n, numbers shared or changed are the sequence check's (sequence-ledger.ts); a POST
 * without a readable number is left to it. Kept apart from the ledger's queries so that it can be
 * tried on made-up runs.
 */

/** One POST to a FIFO endpoint, as its receiver recorded it, with what the ledger knows of it. */
export interface FifoPost extends Pick<
  ReceivedPost,
  | 'endpoint'
  | 'eventId'
  | 'attempt'
  | 'sequence'
  | 'outcome'
  | 'receivedAt'
  | 'answeredAt'
  | 'senderPort'
> {
  /** Never recorded in the log, and in a kill -9's crash window (ledger.ts `crashFor`). */
  cutOffByKill: boolean;
  /** For a person: the engine that sent it, as far as its connections tell. */
  sender?: string;
}

export interface FifoEndpointFacts {
  /** `webhook_endpoints.ordering` of the endpoint (null: no row). */
  ordering: string | null;
  /** Numbers whose delivery the log gave up on (abandoned or cancelled): the queue passes them. */
  givenUp: ReadonlySet<number>;
}

export interface FifoLedgerInput {
  /** The endpoints registered with `ordering: "fifo"`, by name. */
  endpoints: ReadonlyMap<string, FifoEndpointFacts>;
  /** POSTs in the order their receiver recorded them (arrival); other endpoints' are ignored. */
  posts: readonly FifoPost[];
}

export const FIFO_FINDINGS = [
  'not fifo in the log',
  'accepted out of order',
  'passed while open',
  'sent after a later number',
  'two in flight',
] as const;
export type FifoFindingKind = (typeof FIFO_FINDINGS)[number];

export interface FifoFigures {
  endpoints: Record<
    string,
    {
      posts: number;
      /** POSTs never recorded and cut off by a kill -9: how often a kill hit this queue. */
      cutOffByKill: number;
      /** POSTs by the engine that sent them (when known): whether the queue changed hands. */
      bySender: Record<string, number>;
      /** Numbers accepted at least once, and the highest of them. */
      accepted: number;
      highestAccepted: number | null;
      /** Numbers the log gave up on. */
      givenUp: number;
      /** Excused: a POST arriving while one cut off by a kill -9 was still open. */
      inFlightTogetherInCrashWindow: number;
      /** Excused: a number accepted again after a later one, its accepted POST cut off by a kill. */
      resentAfterLaterInCrashWindow: number;
    }
  >;
  findings: Record<FifoFindingKind, number>;
}

export interface FifoJudgement {
  figures: FifoFigures;
  findings: Finding<FifoFindingKind>[];
}

/** A POST as a finding shows it: enough to place it among the others and the kills. */
function shown(post: FifoPost, sequence: number) {
  return {
    sequence,
    event: post.eventId,
    attempt: post.attempt,
    outcome: post.outcome,
    at: new Date(post.receivedAt).toISOString(),
    answeredAt: post.answeredAt === null ? null : new Date(post.answeredAt).toISOString(),
    port: post.senderPort,
    ...(post.sender === undefined ? {} : { sender: post.sender }),
    cutOffByKill: post.cutOffByKill,
  };
}

function judgeEndpoint(
  endpoint: string,
  facts: FifoEndpointFacts,
  posts: readonly FifoPost[],
  findings: Finding<FifoFindingKind>[],
): FifoFigures['endpoints'][string] {
  if (facts.ordering !== 'fifo') {
    findings.push({ kind: 'not fifo in the log', endpoint, ordering: facts.ordering });
  }
  let inFlightTogetherInCrashWindow = 0;
  let resentAfterLaterInCrashWindow = 0;
  /** Number → its first accepted POST so far; and the latest accepted POST of each number. */
  const firstAccepted = new Map<number, FifoPost>();
  const lastAccepted = new Map<number, FifoPost>();
  /** The highest number accepted so far, with its POST. */
  let highest: { sequence: number; post: FifoPost } | null = null;
  const open: { post: FifoPost; sequence: number }[] = [];

  for (const post of posts) {
    const sequence = parseSequence(post.sequence);
    if (sequence === null) {
      // A test event carries no number and bypasses the queue (ADR 0045); a POST due without
      // one is the sequence check's finding.
      continue;
    }

    // --- one at a time: every earlier POST must have been answered before this one arrived.
    for (let i = open.length - 1; i >= 0; i -= 1) {
      const earlier = open[i];
      if (earlier.post.answeredAt !== null && earlier.post.answeredAt <= post.receivedAt) {
        open.splice(i, 1);
      } else if (earlier.post.cutOffByKill) {
        inFlightTogetherInCrashWindow += 1;
      } else {
        findings.push({
          kind: 'two in flight',
          endpoint,
          earlier: shown(earlier.post, earlier.sequence),
          later: shown(post, sequence),
        });
      }
    }
    open.push({ post, sequence });

    // --- in order: nothing of a number once a higher one was accepted.
    const accepted = post.outcome === 'accepted';
    if (highest !== null && sequence < highest.sequence) {
      const previous = lastAccepted.get(sequence);
      if (previous === undefined && accepted) {
        findings.push({
          kind: 'accepted out of order',
          endpoint,
          sequence,
          post: shown(post, sequence),
          afterHigher: shown(highest.post, highest.sequence),
        });
      } else if (previous?.cutOffByKill) {
        resentAfterLaterInCrashWindow += 1;
      } else {
        findings.push({
          kind: 'sent after a later number',
          endpoint,
          sequence,
          post: shown(post, sequence),
          afterHigher: shown(highest.post, highest.sequence),
          ...(previous === undefined ? {} : { acceptedBefore: shown(previous, sequence) }),
        });
      }
    }
    if (accepted) {
      if (!firstAccepted.has(sequence)) {
        firstAccepted.set(sequence, post);
        // --- no number passed while open: every lower one accepted already, or given up.
        for (let lower = (highest?.sequence ?? 0) + 1; lower < sequence; lower += 1) {
          if (!firstAccepted.has(lower) && !facts.givenUp.has(lower)) {
            findings.push({
              kind: 'passed while open',
              endpoint,
              sequence: lower,
              passedBy: shown(post, sequence),
            });
          }
        }
      }
      lastAccepted.set(sequence, post);
      if (highest === null || sequence > highest.sequence) {
        highest = { sequence, post };
      }
    }
  }
  return {
    posts: posts.length,
    cutOffByKill: posts.filter((post) => post.cutOffByKill).length,
    bySender: posts.reduce<Record<string, number>>((counts, post) => {
      const sender = post.sender ?? 'unknown';
      counts[sender] = (counts[sender] ?? 0) + 1;
      return counts;
    }, {}),
    accepted: firstAccepted.size,
    highestAccepted: highest?.sequence ?? null,
    givenUp: facts.givenUp.size,
    inFlightTogetherInCrashWindow,
    resentAfterLaterInCrashWindow,
  };
}

export function judgeFifoOrder(input: FifoLedgerInput): FifoJudgement {
  const findings: Finding<FifoFindingKind>[] = [];
  const endpoints: FifoFigures['endpoints'] = {};
  for (const [endpoint, facts] of [...input.endpoints].sort(([a], [b]) => a.localeCompare(b))) {
    const posts = input.posts.filter((post) => post.endpoint === endpoint);
    endpoints[endpoint] = judgeEndpoint(endpoint, facts, posts, findings);
  }
  const counts = Object.fromEntries(FIFO_FINDINGS.map((kind) => [kind, 0])) as Record<
    FifoFindingKind,
    number
  >;
  findings.forEach((finding) => (counts[finding.kind] += 1));
  return { figures: { endpoints, findings: counts }, findings };
}

/** The check's detail when it passes: each endpoint's order, and what a crash excused. */
export function fifoSummary(figures: FifoFigures): string {
  const parts = Object.entries(figures.endpoints).map(
    ([endpoint, e]) =>
      `${endpoint}: ${e.accepted} numbers first accepted in order 1..${e.highestAccepted ?? 0}` +
      `${e.givenUp > 0 ? ` (${e.givenUp} given up)` : ''}, one POST at a time over ${e.posts} POSTs ` +
      `(${e.cutOffByKill} cut off by a kill); in a crash window: ` +
      `${e.inFlightTogetherInCrashWindow} in flight together, ` +
      `${e.resentAfterLaterInCrashWindow} re-sent after a later number`,
  );
  return parts.join('; ') || 'no FIFO endpoint';
}

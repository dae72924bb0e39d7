import { jetstreamManager } from '@nats-io/jetstream';
import { provisionJetStream } from '@svc/messaging';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../support/free-port';
import { AppProcess } from '../harness/app-process';
import type { FaultStack } from '../harness/fault-stack';
import type { FaultMark } from '../harness/ledger';
import { NatsClusterNode, PrivateNatsCluster } from '../harness/private-nats-cluster';
import { acceptAfter } from '../harness/recording-receiver';
import { failedChecks, runScenario, ScenarioContext } from '../harness/scenario';
import { APPS_ROOT } from '../harness/settings';
import { FIFO_ENDPOINTS } from '../harness/topology';

const REPLICAS = 3;
/** What the FIFO endpoint (4 events in 10, one POST at a time) keeps up with on 2 cores. */
const PER_SECOND = 30;
/** As tried by hand (issue 36): the stream leader is killed 3.3 s into the publish. */
const LEADER_KILL_AFTER_S = 3.3;
const LEADER_DOWN_MS = 8000;
/** Normal delivery between the faults, so that each one's stop is measured on its own. */
const BETWEEN_FAULTS_MS = 4000;
/** Two of the three servers down: no quorum for the stream, its consumers, nor the meta group. */
const NO_QUORUM_MS = 20_000;
/** Publishing goes on this long after the last fault. */
const TAIL_MS = 3000;
/** /readyz is asked this often throughout. */
const PROBE_EVERY_MS = 500;
/**
 * The engine's JetStream check (its consumer and its stream) gives up after 2 s and a probe after
 * 3 s: from then on, the quorum being gone shows in /readyz.
 */
const READINESS_GRACE_MS = 5000;
/** Once the quorum is back, the engine is ready again within this, by itself. */
const READY_AGAIN_WITHIN_MS = 60_000;

interface Probe {
  at: number;
  /** The HTTP status, or 0 when /readyz did not answer within 3 s. */
  status: number;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Seconds from `from` to the first of `times` at or after it (sorted), null when none. */
const after = (times: number[], from: number) => {
  const first = times.find((time) => time >= from);
  return first === undefined ? null : seconds(first - from);
};

/**
 * The longest time no receiver accepted a POST around a fault: the longest gap between two
 * consecutive acceptances (all receivers together) that ended between the fault's start and the
 * next fault's (or the end). A gap that began before the fault counts from its start: deliveries
 * had already stopped.
 */
function deliveryStop(acceptedAt: number[], from: number, to: number) {
  let longest = { ms: 0, from, to: from };
  for (let i = 1; i < acceptedAt.length; i += 1) {
    const [start, end] = [acceptedAt[i - 1], acceptedAt[i]];
    if (end >= from && end < to && end - start > longest.ms) {
      longest = { ms: end - start, from: start, to: end };
    }
  }
  return longest;
}

/** The replicas of the events stream and of the delivery consumer, as JetStream reports them. */
async function replication(stack: FaultStack) {
  const jsm = await jetstreamManager(stack.nats, { timeout: 5000 });
  const stream = await jsm.streams.info(stack.names.eventsStream);
  const consumer = await jsm.consumers.info(stack.names.eventsStream, stack.names.consumer);
  const servers = (cluster: typeof stream.cluster) =>
    [cluster?.leader, ...(cluster?.replicas ?? []).map((replica) => replica.name)]
      .filter((name): name is string => Boolean(name))
      .sort();
  return {
    stream: { numReplicas: stream.config.num_replicas, servers: servers(stream.cluster) },
    consumer: { numReplicas: consumer.config.num_replicas, servers: servers(consumer.cluster) },
  };
}

/** An engine's warning that names the setting (what `startWhenPossible` logs at each try). */
const REFUSAL = /"message":"cannot start yet \((.*?EVENTS_STREAM_REPLICAS=5.*?)\); retrying"/;

/**
 * Five replicas on three servers, refused: by provisioning (another stream of its own) and by a
 * second engine process configured so, which stays not ready, says why, and takes no work (its
 * provisioning stops at the events stream, before any consumer).
 */
async function refusals(
  stack: FaultStack,
  { check, figures, log }: Pick<ScenarioContext, 'check' | 'figures' | 'log'>,
): Promise<void> {
  const tag = stack.names.eventsStream.replace(/_EVENTS$/, '');
  const provisioning = await provisionJetStream(stack.nats, {
    subjectRoot: `${stack.names.subjectRoot}_r5`,
    eventsStream: `${tag}_R5_EVENTS`,
    deadLetterStream: `${tag}_R5_DEAD_LETTER`,
    consumer: `${stack.names.consumer}_r5`,
    replicas: 5,
    maxAgeMs: 3_600_000,
    ackWaitMs: 5000,
    maxAckPending: 100,
  }).then(
    () => 'provisioned',
    (error: Error) => error.message,
  );
  const port = await freePort();
  const engine = new AppProcess(
    'engine-refused',
    resolve(APPS_ROOT, 'dist/apps/delivery/src/main.js'),
    { ...stack.engineEnv(), EVENTS_STREAM_REPLICAS: '5', DELIVERY_PORT: String(port) },
    { cwd: APPS_ROOT, logFile: join(stack.logDir, 'engine-refused.log') },
  );
  let said: string | undefined;
  let readyz: { status: number; body: string };
  try {
    const deadline = Date.now() + 60_000;
    while (said === undefined && engine.running && Date.now() < deadline) {
      said = REFUSAL.exec(engine.output())?.[1].replace(/\\"/g, '"');
      await sleep(250);
    }
    readyz = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3000) })
      .then(async (response) => ({ status: response.status, body: await response.text() }))
      .catch((error: Error) => ({ status: 0, body: error.message }));
  } finally {
    await engine.stop();
  }
  log(`5 replicas refused: ${said ?? engine.output().slice(-300)}`);
  figures.refusal = { provisioning, engine: said ?? null, engineReadyz: readyz };
  check(
    'five replicas on three servers are refused, naming the setting',
    /cannot create stream \S+ with 5 replicas \(EVENTS_STREAM_REPLICAS=5\): JetStream answered/.test(
      provisioning,
    ) &&
      said !== undefined &&
      readyz.status === 503 &&
      readyz.body.includes('EVENTS_STREAM_REPLICAS=5'),
    `provisioning: ${provisioning}; an engine with EVENTS_STREAM_REPLICAS=5: ` +
      `${said === undefined ? 'no such warning' : `"${said}"`}; /readyz ${readyz.status} ${readyz.body}`,
  );
}

describe('fault: the NATS stream leader killed in a three-server cluster', () => {
  it('delivers everything once, and the engine waits out a lost quorum by itself', async () => {
    let cluster!: PrivateNatsCluster;
    const probes: Probe[] = [];
    const marks: FaultMark[] = [];
    const result = await runScenario({
      name: 'nats-cluster-leader-killed',
      description:
        `three nats-servers in a cluster, the events stream and the delivery consumer with ${REPLICAS} replicas; ` +
        `events at ${PER_SECOND}/s; the stream leader is killed with SIGKILL ${LEADER_KILL_AFTER_S} s into the publish and started again ${LEADER_DOWN_MS / 1000} s later; ` +
        `once it has caught up, the server then leading the stream (another) is restarted (SIGTERM, started once it exited); ` +
        `then two of the three servers (the leaders of the stream and of the delivery consumer; the stream leader and one other when one server leads both) are killed with SIGKILL for ${NO_QUORUM_MS / 1000} s and started again; ` +
        `publishing goes on throughout (the publisher retries each event until acknowledged) and ${TAIL_MS / 1000} s after; /readyz of the engine asked every ${PROBE_EVERY_MS} ms`,
      settings: {
        servers: REPLICAS,
        perSecond: PER_SECOND,
        leaderKillAfterS: LEADER_KILL_AFTER_S,
        leaderDownMs: LEADER_DOWN_MS,
        betweenFaultsMs: BETWEEN_FAULTS_MS,
        noQuorumMs: NO_QUORUM_MS,
        tailMs: TAIL_MS,
      },
      engineEnv: {
        EVENTS_STREAM_REPLICAS: String(REPLICAS),
        DELIVERY_CONSUMER_REPLICAS: String(REPLICAS),
      },
      startNats: async () => {
        cluster = await PrivateNatsCluster.start(REPLICAS);
        return cluster;
      },
      async run({ stack, fault, log, figures, check }) {
        for (const receiver of stack.receivers.values()) {
          receiver.answerWith(acceptAfter(20, 80));
        }
        const engine = await stack.startEngine();
        const { eventsStream, consumer } = stack.names;
        await cluster.waitUntilCurrent(stack.nats, eventsStream);
        await cluster.waitUntilCurrent(stack.nats, eventsStream, consumer);
        const replicated = await replication(stack);
        figures.replication = replicated;
        const everyServer = cluster.nodes.map((node) => node.name).sort();
        check(
          'the events stream and the delivery consumer are replicated on all three servers',
          [replicated.stream, replicated.consumer].every(
            (r) => JSON.stringify(r.servers) === JSON.stringify(everyServer),
          ) &&
            replicated.stream.numReplicas === REPLICAS &&
            replicated.consumer.numReplicas === REPLICAS,
          JSON.stringify(replicated),
        );
        await refusals(stack, { check, figures, log });

        let probing = true;
        const prober = (async () => {
          while (probing) {
            const at = Date.now();
            const status = await fetch(`${engine.managementUrl}/readyz`, {
              signal: AbortSignal.timeout(3000),
            })
              .then((response) => response.status)
              .catch(() => 0);
            probes.push({ at, status });
            await sleep(Math.max(0, at + PROBE_EVERY_MS - Date.now()));
          }
        })();
        const leaderOf = async (ofConsumer?: string) => {
          const deadline = Date.now() + 30_000;
          for (;;) {
            const leader = await cluster.leader(stack.nats, eventsStream, ofConsumer);
            if (leader) {
              return leader;
            }
            if (Date.now() > deadline) {
              throw new Error(`${ofConsumer ?? eventsStream} has had no leader for 30 s`);
            }
            await sleep(250);
          }
        };
        const caughtUp = async () => {
          await cluster.waitUntilCurrent(stack.nats, eventsStream);
          await cluster.waitUntilCurrent(stack.nats, eventsStream, consumer);
        };
        const mark = (kind: string, at: number, endedAt?: number) => {
          marks.push(fault(kind, at, endedAt));
        };

        let lastFaultOverAt = Infinity;
        let failure: Error | undefined;
        const faults = (async () => {
          while (stack.load.published.length < Math.round(LEADER_KILL_AFTER_S * PER_SECOND)) {
            await sleep(20);
          }
          // 1. The stream leader crashes during the publish and comes back a little later.
          const first = await leaderOf();
          let at = Date.now();
          await first.stop('SIGKILL');
          log(
            `killed the stream leader ${first.name} (-9) after ${stack.load.published.length} events`,
          );
          await sleep(LEADER_DOWN_MS);
          await first.start();
          mark(`stream leader ${first.name} kill -9`, at);
          log(`${first.name} started again`);
          await caughtUp();
          log(`${first.name} caught up; stream leader now ${(await leaderOf()).name}`);
          await sleep(BETWEEN_FAULTS_MS);

          // 2. Another server restarted, as a rolling update does: the leader if it is another.
          const leader = await leaderOf();
          const second = leader !== first ? leader : cluster.nodes.find((node) => node !== first)!;
          at = Date.now();
          await second.stop('SIGTERM');
          log(`stopped ${second.name} (SIGTERM${second === leader ? ', the stream leader' : ''})`);
          await second.start();
          mark(`${second.name} restarted`, at);
          log(`${second.name} started again`);
          await caughtUp();
          log(`${second.name} caught up`);
          await sleep(BETWEEN_FAULTS_MS);

          // 3. Two of three down: no quorum anywhere. The engine must hold on and come back alone.
          // The two are the leaders of the stream and of the consumer (another when one leads
          // both): a leader left alone goes on answering until its group notices, 10 s or more.
          const streamLeader = await leaderOf();
          const consumerLeader = await leaderOf(consumer);
          const down: NatsClusterNode[] = [
            streamLeader,
            consumerLeader !== streamLeader
              ? consumerLeader
              : cluster.nodes.find((node) => node !== streamLeader)!,
          ];
          at = Date.now();
          await Promise.all(down.map((node) => node.stop('SIGKILL')));
          const names = down.map((node) => node.name).join(' and ');
          log(`killed ${names} (-9): no quorum for ${NO_QUORUM_MS / 1000} s`);
          await sleep(NO_QUORUM_MS);
          await Promise.all(down.map((node) => node.start()));
          const restoredAt = Date.now();
          mark(`no quorum: ${names} kill -9`, at, restoredAt);
          log(`${names} started again`);
          await caughtUp();
          const readyBy = restoredAt + READY_AGAIN_WITHIN_MS;
          while (!probes.some((p) => p.at >= restoredAt && p.status === 200)) {
            if (Date.now() > readyBy) {
              break;
            }
            await sleep(PROBE_EVERY_MS);
          }
          lastFaultOverAt = Date.now();
        })().catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
        });

        await stack.load.publishPaced({
          count: 100_000,
          perSecond: PER_SECOND,
          until: () => failure !== undefined || Date.now() > lastFaultOverAt + TAIL_MS,
        });
        await faults;
        probing = false;
        await prober;
        if (failure !== undefined) {
          throw failure;
        }
        check(
          'the engine ran throughout, never restarted',
          stack.engines.length === 1 && engine.running,
          `${stack.engines.length} engine process(es); the first ${engine.running ? 'still running' : 'ended'}`,
        );
      },
      verify({ stack, figures, check }) {
        const acceptedAt = stack
          .posts()
          .filter((post) => post.outcome === 'accepted')
          .map((post) => post.receivedAt)
          .sort((a, b) => a - b);
        const unorderedAcceptedAt = stack
          .posts()
          .filter((post) => post.outcome === 'accepted' && !FIFO_ENDPOINTS.has(post.endpoint))
          .map((post) => post.receivedAt)
          .sort((a, b) => a - b);
        const publishedAt = stack.load.published.map((event) => event.publishedAt);
        const origin = acceptedAt[0] ?? 0;
        const stops = marks.map((mark, i) => {
          const to = marks[i + 1]?.at ?? Infinity;
          const stop = deliveryStop(acceptedAt, mark.at, to);
          const unordered = deliveryStop(unorderedAcceptedAt, mark.at, to);
          const publishing = deliveryStop(publishedAt, mark.at, to);
          const readiness = probes.filter((p) => p.at >= mark.at && p.at < to);
          const notReady = readiness.filter((p) => p.status !== 200);
          const readyAgain = readiness.find((p) => p.at >= mark.endedAt && p.status === 200);
          return {
            fault: mark.kind,
            faultDurationS: seconds(mark.endedAt - mark.at),
            /** The longest time no POST was accepted, and when, from the fault's start. */
            deliveryStoppedS: seconds(stop.ms),
            deliveryStopFromS: seconds(stop.from - mark.at),
            deliveryStopToS: seconds(stop.to - mark.at),
            /** The same at the unordered endpoints (the FIFO one's queue is fed from PostgreSQL). */
            unorderedDeliveryStoppedS: seconds(unordered.ms),
            /** The longest time no publish was acknowledged (the publisher retrying). */
            publishStoppedS: seconds(publishing.ms),
            /**
             * From the fault's end (the servers started again) to the first publish acknowledged
             * and the first POST accepted after it: with no backlog, deliveries resume with events.
             */
            publishResumedAfterEndS: after(publishedAt, mark.endedAt),
            deliveryResumedAfterEndS: after(acceptedAt, mark.endedAt),
            notReadyProbes: `${notReady.length} of ${readiness.length}`,
            notReadyFromS: notReady.length > 0 ? seconds(notReady[0].at - mark.at) : null,
            notReadyToS:
              notReady.length > 0 ? seconds(notReady[notReady.length - 1].at - mark.at) : null,
            readyAgainAfterRestoreS:
              readyAgain === undefined ? null : seconds(readyAgain.at - mark.endedAt),
            /** Each change of /readyz (ready or not), in s from the fault's start. */
            readinessChanges: readiness
              .filter((p, j) => j === 0 || (p.status === 200) !== (readiness[j - 1].status === 200))
              .map((p) => `${seconds(p.at - mark.at)} ${p.status === 200 ? 'ready' : 'not ready'}`),
          };
        });
        const quiet = deliveryStop(
          acceptedAt.filter((at) => at < (marks[0]?.at ?? Infinity)),
          origin,
          marks[0]?.at ?? Infinity,
        );
        figures.deliveryStops = stops;
        figures.longestGapBeforeTheFaultsS = seconds(quiet.ms);
        figures.publishRetries = stack.load.published.filter((event) => event.tries > 1).length;
        // How long the receivers went on after the last event: the FIFO queue's backlog, mostly.
        const lastPublished = Math.max(...publishedAt);
        const lastOf = (fifo: boolean) =>
          seconds(
            Math.max(
              ...stack
                .posts()
                .filter((post) => FIFO_ENDPOINTS.has(post.endpoint) === fifo)
                .map((post) => post.receivedAt),
            ) - lastPublished,
          );
        figures.lastAcceptedAfterLastPublishS = { unordered: lastOf(false), fifo: lastOf(true) };
        const line = stops
          .map(
            (s) =>
              `${s.fault}: deliveries stopped ${s.deliveryStoppedS} s, not ready ${s.notReadyProbes} probes`,
          )
          .join('; ');
        process.stderr.write(`[faults nats-cluster-leader-killed] ${line}\n`);

        const quorum = marks[marks.length - 1];
        if (quorum === undefined) {
          return;
        }
        const during = probes.filter(
          (p) => p.at >= quorum.at + READINESS_GRACE_MS && p.at + 3000 <= quorum.endedAt,
        );
        check(
          'the engine reports not ready while the cluster has no quorum',
          during.length > 0 && during.every((p) => p.status !== 200),
          `/readyz from ${READINESS_GRACE_MS / 1000} s after the kill until the start: ` +
            `${during.filter((p) => p.status !== 200).length} of ${during.length} probes not ready`,
        );
        const readyAgain = probes.find((p) => p.at >= quorum.endedAt && p.status === 200);
        check(
          'the engine is ready again by itself once the quorum is back',
          readyAgain !== undefined && readyAgain.at - quorum.endedAt <= READY_AGAIN_WITHIN_MS,
          readyAgain === undefined
            ? `no 200 from /readyz after the start`
            : `/readyz 200 ${seconds(readyAgain.at - quorum.endedAt)} s after the servers were started again`,
        );
      },
    });
    expect(failedChecks(result)).toEqual([]);
  }, 600_000);
});

import type { EngineProcess } from './engine-process';
import { memoryOf } from './process-stats';
import { MetricsDelta } from './stats';

/** One look at an engine's memory: resident, and V8's and Node's parts from its /metrics. */
export interface MemorySample {
  /** Since the sampler started. */
  atSeconds: number;
  rssMiB: number;
  heapTotalMiB: number;
  heapUsedMiB: number;
  /** Memory of C++ objects bound to JavaScript ones (Buffers, TLS and zlib state, …). */
  externalMiB: number;
  /** Size of each V8 heap space (new, old, code, large object, …), committed. */
  spacesMiB: Record<string, number>;
}

const SAMPLE_EVERY_MS = 1000;
const mib = (bytes: number) => bytes / 2 ** 20;

/**
 * Looks at an engine's resident memory once a second for its whole life and, at each new high,
 * at what it is made of (/metrics): the sample with the most resident memory tells what the peak
 * (VmHWM) was made of, give or take a second.
 */
export class MemorySampler {
  private peak: MemorySample | undefined;
  private readonly startedAt = performance.now();
  /** Resident memory when sampling began: the engine started, before any load. */
  readonly rssAtStartMiB: number;
  private readonly timer: NodeJS.Timeout;
  private sampling = false;

  constructor(private readonly engine: EngineProcess) {
    this.rssAtStartMiB = memoryOf(engine.pid).rssMiB;
    this.timer = setInterval(() => void this.sample(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  /** The sample with the most resident memory so far. */
  get peakSample(): MemorySample | undefined {
    return this.peak;
  }

  /**
   * Resident memory now (0 once the engine has stopped): a phase shorter than the sampling
   * interval has no sample of its own.
   */
  rssNowMiB(): number {
    try {
      return this.engine.running ? memoryOf(this.engine.pid).rssMiB : 0;
    } catch {
      return 0;
    }
  }

  /** Forgets the peak so far, so that the next one is a phase's own (the cost scenario's rates). */
  resetPeak(): void {
    this.peak = undefined;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sample(): Promise<void> {
    if (this.sampling || !this.engine.running) {
      return;
    }
    this.sampling = true;
    try {
      // /proc first, and /metrics only at a new high: a scrape costs the engine a few
      // milliseconds, and once a second it was part of the CPU per delivery the bench reports.
      const { rssMiB } = memoryOf(this.engine.pid);
      if (this.peak && rssMiB <= this.peak.rssMiB) {
        return;
      }
      const metrics = new MetricsDelta([], await this.engine.metrics());
      const spaces: Record<string, number> = {};
      for (const space of ['new', 'old', 'code', 'map', 'large_object', 'new_large_object']) {
        const size = metrics.latest('nodejs_heap_space_size_total_bytes', { space });
        if (size > 0) {
          spaces[space] = mib(size);
        }
      }
      this.peak = {
        atSeconds: (performance.now() - this.startedAt) / 1000,
        rssMiB,
        heapTotalMiB: mib(metrics.latest('nodejs_heap_size_total_bytes')),
        heapUsedMiB: mib(metrics.latest('nodejs_heap_size_used_bytes')),
        externalMiB: mib(metrics.latest('nodejs_external_memory_bytes')),
        spacesMiB: spaces,
      };
    } catch {
      // The engine is stopping: the samples so far stand.
    } finally {
      this.sampling = false;
    }
  }
}

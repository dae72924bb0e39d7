import { NamedRun } from '../bench-report';
import { EngineRunContext, EngineRunResult } from '../bench-runs';
import { burst, ScenarioKit } from './scenario-kit';

/** One side of a comparison: the baseline (as steady) or the scenario's setup. */
export interface Side {
  label: string;
  context: EngineRunContext;
}

export interface PairedRuns {
  runs: NamedRun[];
  baseline: EngineRunResult[];
  scenario: EngineRunResult[];
}

/**
 * Bursts of `events` events on both sides, BENCH_PAIRED_ROUNDS times, in the order baseline then
 * scenario, then scenario then baseline, and so on (ABBA): a machine that gets busier or quieter
 * over the run weighs on both sides alike. Both sides' engines run throughout; the idle one
 * polls its schedule and little else.
 */
export async function alternateBursts(
  kit: ScenarioKit,
  baseline: Side,
  scenario: Side,
  events: number,
): Promise<PairedRuns> {
  const paired: PairedRuns = { runs: [], baseline: [], scenario: [] };
  for (let round = 1; round <= kit.settings.pairedRounds; round += 1) {
    const order: ['baseline' | 'scenario', Side][] = [
      ['baseline', baseline],
      ['scenario', scenario],
    ];
    if (round % 2 === 0) {
      order.reverse();
    }
    for (const [role, side] of order) {
      const name = `${side.label} #${round}`;
      const run = await burst(kit, side.context, name, events);
      paired.runs.push({ name, role, engine: run });
      paired[role].push(run);
    }
  }
  return paired;
}

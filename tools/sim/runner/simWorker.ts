/**
 * A process that only runs simulated worlds, for `npm run sim`: it traps every global that
 * would make a world depend on more than its seed, then runs the seeds its parent sends.
 */
import { installDeterminismTraps } from '../kernel/determinismTraps.js';
import { runWorld, type WorldResult } from '../world/runWorld.js';
import type { WorldConfig } from '../world/WorldConfig.js';
import type { WorkerReply, WorkerRequest } from './workerProtocol.js';

const traps = installDeterminismTraps();

async function runChecked(
  seed: number,
  keepTrace: boolean,
  config: WorldConfig | undefined,
): Promise<WorldResult> {
  let result: WorldResult;
  try {
    result = await runWorld({ seed, keepTrace, config });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { ...emptyResult(seed), failures: [`the simulator itself threw: ${message}`] };
  }
  const leaks = traps.leaks.splice(0);
  if (leaks.length === 0) return result;
  const reached = [...new Set(leaks.map((leak) => leak.global))].join(', ');
  return { ...result, failures: [...result.failures, `determinism: the world reached ${reached}`] };
}

function emptyResult(seed: number): WorldResult {
  return {
    seed,
    config: undefined as never,
    failures: [],
    traceHash: '',
    trace: [],
    steps: 0,
    simulatedMillis: 0,
    invocations: 0,
    sharedCommits: { sent: 0, cancelled: 0 },
    conflicts: { rules: false, real: 0, injected: 0 },
  };
}

function reply(message: WorkerReply): void {
  process.send?.(message);
}

process.on('message', async (request: WorkerRequest) => {
  if (request.type === 'stop') process.exit(0);
  const { seeds, hashesOf, keepTrace, config } = request;
  const results: Array<WorkerReply['results'][number]> = [];
  let passed = 0;
  let steps = 0;
  const shared = { sent: 0, cancelled: 0 };
  const conflicts = { worldsWithRules: 0, real: 0, injected: 0 };
  for (const seed of seeds) {
    const result = await runChecked(seed, keepTrace, config);
    steps += result.steps;
    shared.sent += result.sharedCommits.sent;
    shared.cancelled += result.sharedCommits.cancelled;
    if (result.conflicts.rules) conflicts.worldsWithRules++;
    conflicts.real += result.conflicts.real;
    conflicts.injected += result.conflicts.injected;
    if (result.failures.length === 0) passed++;
    if (result.failures.length > 0 || keepTrace || hashesOf.includes(seed)) {
      results.push({
        seed,
        failures: result.failures,
        traceHash: result.traceHash,
        trace: keepTrace ? result.trace : [],
        config: result.config,
        conflicts: result.conflicts,
      });
    }
  }
  reply({ type: 'done', passed, steps, sharedCommits: shared, conflicts, results });
});

reply({
  type: 'ready',
  passed: 0,
  steps: 0,
  sharedCommits: { sent: 0, cancelled: 0 },
  conflicts: { worldsWithRules: 0, real: 0, injected: 0 },
  results: [],
});

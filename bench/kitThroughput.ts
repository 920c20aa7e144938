/**
 * `npm run bench:kit`: 1,000 payment records through the reference ledger (the processor
 * `functions/ledger` deploys, less Powertools) on the testing kit's in-memory DynamoDB — through
 * `InboxTest` and its document client, and through the SDK client it also offers — next to the
 * same on the emulator, started here as `npm run bench` starts it. Batches of 10 from a FIFO
 * queue (one group per account), one at a time as a test delivers them, with a share of copies
 * (resends and redelivered batches). Rounds run every DynamoDB once, each round in another order;
 * medians printed, with ratios to the emulator's median of the same run. Every run is checked
 * (each payment processed once, each copy a duplicate, balances and ledger entries as sent), and
 * a wrong one stops the command before any figure. Prints figures; asserts nothing on time.
 *
 *   npm run bench:kit -- --rounds 9
 */
import { availableParallelism } from 'node:os';
import { Command } from 'commander';
import { numberIn, shareBelowOne } from '../tools/cli/optionParsers.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { ledgerProblems } from './checkLedger.js';
import { KIT_VARIANTS, type KitVariant } from './kitVariants.js';
import { type LedgerWorkload, makeLedgerWorkload } from './ledgerWorkload.js';
import { median } from './printBenchReport.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const options = new Command('npm run bench:kit --')
  .description(
    "Records through the reference ledger per second on the testing kit's in-memory DynamoDB, next to the emulator.",
  )
  .option('--records <n>', 'records per run, copies included', numberIn('--records', 100), 1000)
  .option(
    '--copies <share>',
    'share of the records that are copies',
    shareBelowOne('--copies'),
    0.1,
  )
  .option('--accounts <n>', 'accounts, one FIFO message group each', numberIn('--accounts', 1), 50)
  .option('--batch-size <n>', 'records per batch', numberIn('--batch-size', 1, 10), 10)
  .option('--rounds <n>', 'runs of each DynamoDB, interleaved', numberIn('--rounds', 1, 50), 5)
  .parse()
  .opts<{ records: number; copies: number; accounts: number; batchSize: number; rounds: number }>();

/**
 * A run's time from the first batch to the last answer, and the CPU time this process spent in
 * it (the emulator's own is in its process): on a busy machine, wall time also counts the waits
 * for a CPU, which the CPU time leaves out.
 */
interface Timing {
  readonly wallMillis: number;
  readonly cpuMillis: number;
}

/** Times a run on fresh tables; throws when its result is wrong. */
async function timeRun(
  variant: KitVariant,
  workload: LedgerWorkload,
  endpoint: string,
): Promise<Timing> {
  const run = await variant.start(endpoint);
  try {
    const statuses: Record<string, number> = {};
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    for (const batch of workload.batches) {
      for (const status of await run.deliver(batch)) statuses[status] = (statuses[status] ?? 0) + 1;
    }
    const wallMillis = performance.now() - started;
    const { user, system } = process.cpuUsage(cpuBefore);
    const problems = ledgerProblems(workload, { statuses, ...(await run.read()) });
    if (problems.length > 0) {
      throw new CommandError(`${variant.name} ran the ledger wrong: ${problems.join('; ')}`);
    }
    return { wallMillis, cpuMillis: (user + system) / 1000 };
  } finally {
    run.close();
  }
}

async function main(): Promise<number> {
  const emulator = await startEmulator(['dynamodb']);
  const shape = { ...options, copyShare: options.copies };
  const workload = makeLedgerWorkload(shape);
  const records = workload.batches.reduce((sum, batch) => sum + batch.length, 0);
  console.log(
    `bench:kit: ${records} records (${records - workload.distinct.length} copies) over ${options.accounts} FIFO groups, batches of ${options.batchSize} one at a time, ${options.rounds} interleaved rounds; Node ${process.version}, ${availableParallelism()} CPUs; emulator: ${emulator.name}`,
  );
  // Warm-up, measured by no one: the modules the library loads on first use, JIT, sockets.
  for (const variant of KIT_VARIANTS) await timeRun(variant, workload, emulator.endpoint);
  const timings = new Map<KitVariant, Timing[]>(KIT_VARIANTS.map((variant) => [variant, []]));
  for (let round = 0; round < options.rounds; round++) {
    // Each round starts with another DynamoDB, so that none always runs first.
    const order = KIT_VARIANTS.map((_, at) => KIT_VARIANTS[(at + round) % KIT_VARIANTS.length]);
    for (const variant of order as KitVariant[]) {
      const measured = await timeRun(variant, workload, emulator.endpoint);
      timings.get(variant)?.push(measured);
      console.error(
        `  round ${round + 1}/${options.rounds} ${variant.name}: ${measured.wallMillis.toFixed(1)} ms, ${measured.cpuMillis.toFixed(0)} ms CPU here`,
      );
    }
  }
  printTable(timings, records);
  return 0;
}

function printTable(timings: ReadonlyMap<KitVariant, Timing[]>, records: number): void {
  const wall = (runs: readonly Timing[]) => median(runs.map((run) => run.wallMillis));
  const emulator = [...timings].find(([variant]) => variant.name === 'emulator')?.[1] ?? [];
  const baseline = wall(emulator);
  console.log('\nmedians; every run checked: each payment once, balances and ledger entries exact');
  console.table(
    [...timings].map(([variant, runs]) => {
      const at = wall(runs);
      const each = runs.map((run) => run.wallMillis);
      return {
        DynamoDB: variant.label,
        'median ms': Number(at.toFixed(1)),
        'min–max ms': `${Math.min(...each).toFixed(0)}–${Math.max(...each).toFixed(0)}`,
        'records/s': Math.round((records / at) * 1000),
        'vs emulator':
          variant.name === 'emulator' ? 'baseline' : `${(baseline / at).toFixed(1)}× faster`,
        'CPU ms here': Math.round(median(runs.map((run) => run.cpuMillis))),
      };
    }),
  );
  console.log(
    "CPU ms here: this process's CPU time (median), the emulator's own left out; where it is well below the wall time, the run waited for a CPU (a busy machine)",
  );
}

await runCommand('npm run bench:kit', main);

/**
 * `npm run bench`: the same SQS batches through a bare handler (no deduplication), sqs-inbox
 * (default, and with coalesced commits) and Powertools idempotency with its batch processor, on
 * one DynamoDB in one run, at batch 10 and batch 100, repetitions interleaved, medians printed.
 * With `--latency`, every request first waits the latency real DynamoDB has (published p50s,
 * size-aware for transactions and batch reads), scaled up so that it dominates the emulator's own
 * time. With `--conflicts`, DynamoDB's transaction conflict rules too (see conflictModel.ts);
 * `--accounts` and `--hot-share` make hot accounts. A script that prints figures, not a test:
 * nothing here asserts on time.
 *
 *   npm run bench -- --latency
 *   npm run bench -- --conflicts --hot-share 0.3
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { numberIn, shareBelowOne } from '../tools/cli/optionParsers.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { startDynamoDBLocal } from '../tools/emulator/dynamodbLocal.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { PUBLISHED_P50_MILLIS } from './latencyModel.js';
import { printBatchTable, settledPerSecond } from './printBenchReport.js';
import { type CaseResult, runCase } from './runCase.js';
import { VARIANTS, type Variant, type VariantName } from './variants.js';
import { makeRecords } from './workload.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * How much the modelled latency is scaled up unless `--latency` names a factor: enough that it
 * dominates the emulator's own time. The emulator serves a burst of requests one after another,
 * so its share grows with the requests in flight (batch size × batches in flight): 1/8 of them,
 * and at least 10× the published latency, keep it near a tenth (printed after each table).
 */
function autoScale(batchSize: number, lambdas: number): number {
  return Math.max(10, Math.ceil((batchSize * lambdas) / 8));
}

const options = new Command('npm run bench --')
  .description(
    'Throughput, requests and write capacity per message of a bare handler, sqs-inbox (default and coalesced) and Powertools idempotency + batch, on one DynamoDB in one run.',
  )
  .option('--messages <n>', 'messages per run', numberIn('--messages', 10), 2000)
  .option(
    '--duplicates <rate>',
    'share of messages that are copies',
    shareBelowOne('--duplicates'),
    0.2,
  )
  .option('--accounts <n>', 'accounts the payments spread over', numberIn('--accounts', 1), 50)
  .option(
    '--hot-share <share>',
    'share of payments to one account (acc-0), the rest spread over the others',
    numberIn('--hot-share', 0, 1, false),
    0,
  )
  .option('--batch-sizes <list>', 'batch sizes, comma-separated', parseSizes, [10, 100])
  .option(
    '--lambdas <n>',
    'batches in flight at once (concurrent invocations)',
    numberIn('--lambdas', 1, 100),
    4,
  )
  .option(
    '--repetitions <n>',
    'runs of each variant, interleaved',
    numberIn('--repetitions', 1, 20),
    3,
  )
  .option(
    '--latency [scale]',
    'model real DynamoDB latency, times scale (default: per batch size, max(10, batch × lambdas / 8))',
    (value) => numberIn('--latency', 1, 100, false)(value),
  )
  .option(
    '--conflicts',
    "model DynamoDB's transaction conflicts (a transaction holds its items for its modelled time); implies --latency",
    false,
  )
  .option(
    '--variants <list>',
    `comma-separated, of: ${Object.keys(VARIANTS).join(', ')}`,
    parseVariants,
    [
      VARIANTS.bare,
      VARIANTS.inbox,
      VARIANTS.coalesced,
      VARIANTS.powertools,
      VARIANTS['powertools-tx'],
    ],
  )
  .addOption(
    new Option('--dynamodb <backend>', 'the emulator, or DynamoDB Local (the official engine)')
      .choices(['emulator', 'dynamodb-local'])
      .default('emulator'),
  )
  .parse()
  .opts<{
    messages: number;
    duplicates: number;
    accounts: number;
    hotShare: number;
    batchSizes: number[];
    lambdas: number;
    repetitions: number;
    latency: number | true | undefined;
    conflicts: boolean;
    variants: Variant[];
    dynamodb: 'emulator' | 'dynamodb-local';
  }>();

function parseSizes(value: string): number[] {
  return value.split(',').map((size) => numberIn('--batch-sizes', 1, 10_000)(size.trim()));
}

function parseVariants(value: string): Variant[] {
  return value.split(',').map((name) => {
    const variant = VARIANTS[name.trim() as VariantName];
    if (variant === undefined) {
      throw new InvalidArgumentError(
        `--variants: ${name} is none of ${Object.keys(VARIANTS).join(', ')}`,
      );
    }
    return variant;
  });
}

async function main(): Promise<number> {
  // A conflict lasts as long as a transaction's modelled time: without a latency there is none.
  const latency = options.latency ?? (options.conflicts ? true : undefined);
  const scaleFor = (batchSize: number) =>
    latency === undefined ? 0 : latency === true ? autoScale(batchSize, options.lambdas) : latency;
  const emulator =
    options.dynamodb === 'dynamodb-local'
      ? await startDynamoDBLocal()
      : await startEmulator(['dynamodb']);
  try {
    const shape = {
      messages: options.messages,
      duplicateRate: options.duplicates,
      accounts: options.accounts,
      hotShare: options.hotShare,
    };
    const { records, distinct } = makeRecords(shape);
    printHeader(emulator.name, latency !== undefined);
    const settings = (batchSize: number, scale: number, slice = records) => ({
      endpoint: emulator.endpoint,
      records: slice,
      distinct,
      accounts: options.accounts,
      batchSize,
      lambdas: options.lambdas,
      latencyScale: scale,
      conflicts: options.conflicts,
    });
    // Warm-up: JIT, sockets and the emulator's first tables, measured by no one.
    for (const variant of options.variants)
      await runCase(variant, { ...settings(10, 0, records.slice(0, 100)), conflicts: false });
    const results: CaseResult[] = [];
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      for (const batchSize of options.batchSizes) {
        // Each repetition starts with another variant, so that none always runs first.
        const order = options.variants.map(
          (_, at) => options.variants[(at + repetition) % options.variants.length] as Variant,
        );
        for (const variant of order) {
          const result = await runCase(variant, settings(batchSize, scaleFor(batchSize)));
          results.push(result);
          console.error(
            `  run ${repetition + 1}/${options.repetitions} batch ${batchSize} ${variant.name}: ${settledPerSecond(result).toFixed(1)} msg/s, ${result.tally.conflicts} conflicts, ${result.unresolved} unresolved`,
          );
        }
      }
    }
    for (const batchSize of options.batchSizes) {
      printBatchTable(batchSize, results, options.variants, {
        latencyScale: scaleFor(batchSize),
        conflicts: options.conflicts,
        hot: options.hotShare > 0 || options.accounts === 1,
      });
    }
    return 0;
  } finally {
    await emulator.stop();
  }
}

function printHeader(backend: string, modelled: boolean): void {
  const { messages, duplicates, accounts, hotShare, lambdas, repetitions } = options;
  const hot = hotShare > 0 ? ` (${Math.round(hotShare * 100)} % of payments to acc-0)` : '';
  console.log(
    `sqs-inbox benchmark on ${backend}: ${messages} messages (${Math.round(duplicates * 100)} % copies), ${accounts} accounts${hot}, ${lambdas} batches in flight, ${repetitions} repetitions`,
  );
  if (!modelled) {
    console.log(
      'no modelled latency: the emulator sets the pace (run with --latency for figures a Lambda sees)',
    );
    return;
  }
  const p = PUBLISHED_P50_MILLIS;
  console.log(
    `modelled DynamoDB latency (p50s: single item ${p.singleItem} ms, TransactWriteItems 5 items ${p.transact5} ms and 25 items ${p.transact25} ms, linear in items; BatchGetItem from ${p.singleItem} ms for 1 key to ${p.batch25} ms for 25), scaled up so that it dominates the emulator; msg/s at real latency = measured × scale; Lambda's remaining time is the default 30 s function timeout × scale`,
  );
  if (options.conflicts) {
    console.log(
      "modelled transaction conflicts (DynamoDB's documented rules): a TransactWriteItems holds its items from its start until it answers; another touching one is cancelled (TransactionConflict), a single-item write on one fails (TransactionConflictException), after their own modelled latency; records still failed after 5 deliveries are unresolved (the DLQ)",
    );
  }
}

await runCommand('npm run bench', main);

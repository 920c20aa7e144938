import { modelRequest } from './latencyModel.js';
import type { CaseResult } from './runCase.js';
import type { Variant } from './variants.js';

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A variant's figures at one batch size: medians over its repetitions. */
interface Row {
  readonly variant: Variant;
  readonly messagesPerSecond: number;
  readonly representative: CaseResult;
  readonly runs: readonly CaseResult[];
}

/** What a table says besides the results: the latency scale, and the hot account if any. */
export interface TableSettings {
  readonly latencyScale: number;
  /** Whether transaction conflicts were modelled. */
  readonly conflicts: boolean;
  /** Whether a hot share of the payments goes to one account: then its ceiling is printed. */
  readonly hot: boolean;
}

const SHORT: Record<string, string> = {
  TransactWriteItemsCommand: 'TransactWrite',
  BatchGetItemCommand: 'BatchGet',
  GetItemCommand: 'Get',
  PutItemCommand: 'Put',
  UpdateItemCommand: 'Update',
  DeleteItemCommand: 'Delete',
  DescribeTableCommand: 'DescribeTable',
};

/**
 * Prints one batch size's tables. First throughput and outcomes: messages/s (median of the
 * repetitions, and scaled back to real DynamoDB latency), its ratio to the bare handler, to
 * Powertools with plain writes and with its writes in a transaction, conflicts, redeliveries,
 * unresolved records, the balance check and, on a hot workload, the share of the hot account's
 * one-transaction-at-a-time ceiling. Then cost: requests per message by operation, requests
 * and capacity per new message. Last, what share of a request's time was the emulator's own.
 *
 * @example
 * ```ts
 * printBatchTable(10, results, variants, { latencyScale: 4, conflicts: true, hot: false });
 * ```
 */
export function printBatchTable(
  batchSize: number,
  results: readonly CaseResult[],
  variants: readonly Variant[],
  settings: TableSettings,
): void {
  const rows = rowsOf(batchSize, results, variants);
  const { latencyScale } = settings;
  const scaled =
    latencyScale > 0 ? `, modelled latency × ${latencyScale}` : ', no modelled latency';
  const conflicts = settings.conflicts ? ', transaction conflicts modelled' : '';
  console.log(
    `\nbatch ${batchSize}: medians of ${rows[0]?.runs.length ?? 0} interleaved runs${scaled}${conflicts}`,
  );
  const ceiling = settings.hot && latencyScale > 0 ? hotCeilingPerSecond(latencyScale) : undefined;
  console.table(rows.map((row) => outcomes(row, rows, latencyScale, ceiling)));
  console.table(rows.map(costs));
  if (ceiling !== undefined) {
    const hot = rows[0]?.representative;
    console.log(
      `hot account: ${hot?.hotPayments} of ${hot?.newMessages} distinct payments; one transaction at a time on it (a message's 3 items, ${(HOT_HOLD_MILLIS * latencyScale).toFixed(0)} ms modelled) allows ${ceiling.toFixed(2)} payments/s, ${(ceiling * latencyScale).toFixed(1)} at real latency; "% of ceiling" is the hot payments settled per second over that (a variant that gives up on some ends sooner: read it with "hot settled"); a transaction also holds its items for the emulator's time, which the ceiling leaves out (see "emulator %")`,
    );
  }
  if (settings.conflicts) {
    console.log(
      'msg/s: records settled (acknowledged) per second, unresolved ones left out; balance: the sum of the payments some record of which was acknowledged (records unresolved after 5 deliveries go to the DLQ: their payments must not be applied)',
    );
  }
  if (latencyScale > 0) printEmulatorShare(rows);
}

function rowsOf(
  batchSize: number,
  results: readonly CaseResult[],
  variants: readonly Variant[],
): Row[] {
  return variants.flatMap((variant): Row[] => {
    const runs = results.filter((r) => r.variant === variant.name && r.batchSize === batchSize);
    if (runs.length === 0) return [];
    const middle = median(runs.map(rateOf));
    // The run nearest the median speaks for the costs (they barely vary between runs).
    const distance = (run: CaseResult) => Math.abs(rateOf(run) - middle);
    const representative = runs.reduce((best, run) =>
      distance(run) < distance(best) ? run : best,
    );
    return [{ variant, messagesPerSecond: middle, representative, runs }];
  });
}

/**
 * Messages settled per second: a record left unresolved (bound for the DLQ) was not processed,
 * so it does not count, or a variant that gives up would look fast.
 *
 * @example
 * ```ts
 * settledPerSecond({ messages: 800, unresolved: 0, seconds: 10 } as CaseResult); // => 80
 * ```
 */
export function settledPerSecond(run: CaseResult): number {
  return (run.messages - run.unresolved) / run.seconds;
}

const rateOf = settledPerSecond;

/** The modelled latency of a message's transaction (entry, credit, ledger entry). */
const HOT_HOLD_MILLIS = modelRequest('TransactWriteItemsCommand', {
  TransactItems: [{}, {}, {}],
}).millis;

/** Payments per second one item allows when its transactions follow one another. */
function hotCeilingPerSecond(latencyScale: number): number {
  return 1000 / (HOT_HOLD_MILLIS * latencyScale);
}

function outcomes(
  { variant, messagesPerSecond, runs }: Row,
  rows: readonly Row[],
  latencyScale: number,
  ceiling: number | undefined,
) {
  const baseOf = (name: string) => rows.find((row) => row.variant.name === name)?.messagesPerSecond;
  const ratio = (base: number | undefined) =>
    base === undefined ? '' : (messagesPerSecond / base).toFixed(2);
  const unresolved = runs.map((run) => run.unresolved);
  const wrong = runs.filter((run) => !run.balanceCorrect).length;
  return {
    variant: variant.label,
    'msg/s': Number(messagesPerSecond.toFixed(1)),
    ...(latencyScale > 0
      ? { 'msg/s at real latency': Number((messagesPerSecond * latencyScale).toFixed(0)) }
      : {}),
    '× bare': ratio(baseOf('bare')),
    '× Powertools': ratio(baseOf('powertools')),
    '× Powertools tx': ratio(baseOf('powertools-tx')),
    conflicts: median(runs.map((run) => run.tally.conflicts)),
    redelivered: median(runs.map((run) => run.redelivered)),
    unresolved: range(unresolved),
    balance: variant.deduplicates
      ? wrong === 0
        ? 'exact'
        : `WRONG in ${wrong} of ${runs.length}`
      : '(no dedup)',
    ...(ceiling === undefined
      ? {}
      : {
          'hot settled': `${median(runs.map((run) => run.hotSettled))} of ${runs[0]?.hotPayments}`,
          '% of ceiling': Math.round(
            100 * median(runs.map((run) => run.hotSettled / run.seconds / ceiling)),
          ),
        }),
  };
}

function costs({ variant, representative: r }: Row) {
  return {
    variant: variant.label,
    'requests/msg': requestsByOperation(r),
    'req/new msg': perNewMessage(r).toFixed(2),
    'WCU/new msg': (r.tally.appliedWriteUnits / r.newMessages).toFixed(2),
    'WCU/msg': (r.tally.writeUnits / r.messages).toFixed(2),
    'RCU/msg': (r.tally.readUnits / r.messages).toFixed(2),
    'emulator %': Math.round(100 * emulatorShare([r])),
  };
}

/** `7`, or `44–51` when the runs differ. */
function range(values: readonly number[]): string {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? String(low) : `${low}–${high}`;
}

/** The emulator's share of a request's time: its median time over that plus the modelled. */
function emulatorShare(results: readonly CaseResult[]): number {
  const emulator = median(results.flatMap((result) => result.tally.emulatorMillis));
  const modelled = median(results.flatMap((result) => result.tally.modelledMillis));
  return emulator / (emulator + modelled);
}

function printEmulatorShare(rows: readonly Row[]): void {
  const results = rows.map((row) => row.representative);
  const emulator = median(results.flatMap((result) => result.tally.emulatorMillis));
  const modelled = median(results.flatMap((result) => result.tally.modelledMillis));
  const share = emulatorShare(results);
  console.log(
    `per request: modelled ${modelled.toFixed(1)} ms, the emulator's own ${emulator.toFixed(1)} ms (median; ${(100 * share).toFixed(0)} % of the time)` +
      (share > 0.2 ? ' — the emulator weighs too much: raise --latency' : ''),
  );
}

/** Requests per message, by operation: `TransactWrite 0.80 + BatchGet 0.10 = 0.90`. */
function requestsByOperation(result: CaseResult): string {
  const parts = [...result.tally.requests.entries()]
    .filter(([name]) => name !== 'DescribeTableCommand')
    .map(([name, count]) => `${SHORT[name] ?? name} ${(count / result.messages).toFixed(2)}`);
  const total = [...result.tally.requests.entries()]
    .filter(([name]) => name !== 'DescribeTableCommand')
    .reduce((sum, [, count]) => sum + count, 0);
  return `${parts.join(' + ')} = ${(total / result.messages).toFixed(2)}`;
}

/**
 * What a new message costs in requests: every request DynamoDB applied (a refused one is a
 * duplicate's), reads shared out over all the records they read for.
 */
function perNewMessage(result: CaseResult): number {
  let applied = 0;
  for (const [name, count] of result.tally.requests) {
    if (name === 'DescribeTableCommand') continue;
    const refused = result.tally.refused.get(name) ?? 0;
    const isRead = name === 'BatchGetItemCommand' || name === 'GetItemCommand';
    applied += isRead ? (count * result.newMessages) / result.messages : count - refused;
  }
  return applied / result.newMessages;
}

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
  readonly runs: number;
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
 * Prints one batch size's table: messages/s (median of the repetitions, and scaled back to real
 * DynamoDB latency), its ratio to the bare handler and to Powertools, requests per message by
 * operation, requests and write capacity per new message, redeliveries and the balance check;
 * then what share of a request's time was the emulator's own.
 *
 * @example
 * ```ts
 * printBatchTable(10, results, variants, 4);
 * ```
 */
export function printBatchTable(
  batchSize: number,
  results: readonly CaseResult[],
  variants: readonly Variant[],
  latencyScale: number,
): void {
  const rows = variants.flatMap((variant): Row[] => {
    const runs = results.filter((r) => r.variant === variant.name && r.batchSize === batchSize);
    if (runs.length === 0) return [];
    const rates = runs.map((run) => run.messages / run.seconds);
    const middle = median(rates);
    // The run nearest the median speaks for the counts (they barely vary between runs).
    const distance = (run: CaseResult) => Math.abs(run.messages / run.seconds - middle);
    const representative = runs.reduce((best, run) =>
      distance(run) < distance(best) ? run : best,
    );
    return [{ variant, messagesPerSecond: middle, representative, runs: runs.length }];
  });
  const rateOf = (name: string) => rows.find((row) => row.variant.name === name)?.messagesPerSecond;
  const bare = rateOf('bare');
  const powertools = rateOf('powertools');
  const powertoolsTx = rateOf('powertools-tx');
  const ratio = (rate: number, base: number | undefined) =>
    base === undefined ? '' : (rate / base).toFixed(2);
  const scaled =
    latencyScale > 0 ? `, modelled latency × ${latencyScale}` : ', no modelled latency';
  console.log(`\nbatch ${batchSize}: medians of ${rows[0]?.runs ?? 0} interleaved runs${scaled}`);
  console.table(
    rows.map(({ variant, messagesPerSecond, representative: r }) => ({
      variant: variant.label,
      'msg/s': Number(messagesPerSecond.toFixed(1)),
      ...(latencyScale > 0
        ? { 'msg/s at real latency': Number((messagesPerSecond * latencyScale).toFixed(0)) }
        : {}),
      '× bare': ratio(messagesPerSecond, bare),
      '× Powertools': ratio(messagesPerSecond, powertools),
      ...(powertoolsTx === undefined
        ? {}
        : { '× Powertools tx': ratio(messagesPerSecond, powertoolsTx) }),
      'requests/msg': requestsByOperation(r),
      'req/new msg': perNewMessage(r).toFixed(2),
      'WCU/new msg': (r.tally.appliedWriteUnits / r.newMessages).toFixed(2),
      'WCU/msg': (r.tally.writeUnits / r.messages).toFixed(2),
      'RCU/msg': (r.tally.readUnits / r.messages).toFixed(2),
      redelivered: r.redelivered,
      balance: variant.deduplicates ? (r.balanceCorrect ? 'exact' : 'WRONG') : '(no dedup)',
    })),
  );
  const emulator = rows.flatMap(({ representative }) => representative.tally.emulatorMillis);
  const modelled = rows.flatMap(({ representative }) => representative.tally.modelledMillis);
  if (latencyScale > 0) {
    const share = median(emulator) / (median(emulator) + median(modelled));
    console.log(
      `per request: modelled ${median(modelled).toFixed(1)} ms, the emulator's own ${median(emulator).toFixed(1)} ms (median; ${(100 * share).toFixed(0)} % of the time)` +
        (share > 0.2 ? ' — the emulator weighs too much: raise --latency' : ''),
    );
  }
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

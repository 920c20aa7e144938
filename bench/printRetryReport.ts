import { EMPTY_RECEIVE } from './countRequests.js';
import { median } from './printBenchReport.js';
import type { RetryRunResult } from './retryRun.js';

/** One figure of a run, and how the table shows it. */
interface Figure {
  readonly label: string;
  readonly of: (run: RetryRunResult) => number;
  readonly decimals?: number;
}

const total = (requests: ReadonlyMap<string, number>, skip?: string) =>
  [...requests].reduce((sum, [name, count]) => (name === skip ? sum : sum + count), 0);

/**
 * The SQS requests messages cost: receives that brought some, deletes, visibility changes. A
 * long poll that came back empty is left out: the local mapping's five pollers poll an idle
 * queue once a second each (Lambda's wait 20 s), so that count says more of the local poller
 * than of the policy; it is printed on its own row.
 */
const sqsTotal = (run: RetryRunResult) => total(run.sqsRequests, EMPTY_RECEIVE);

function figuresOf(runs: readonly RetryRunResult[]): Figure[] {
  const operations = (pick: (run: RetryRunResult) => ReadonlyMap<string, number>) =>
    [...new Set(runs.flatMap((run) => [...pick(run).keys()]))].sort();
  const byOperation = (pick: (run: RetryRunResult) => ReadonlyMap<string, number>) =>
    operations(pick).map(
      (name): Figure => ({ label: `  ${name}`, of: (run) => pick(run).get(name) ?? 0 }),
    );
  return [
    { label: 'downstream calls', of: (run) => run.downstreamCalls },
    { label: '  while it was down', of: (run) => run.refusedCalls },
    { label: `SQS requests (without ${EMPTY_RECEIVE})`, of: sqsTotal },
    ...byOperation((run) => run.sqsRequests),
    { label: 'DynamoDB requests', of: (run) => total(run.dynamodbRequests) },
    ...byOperation((run) => run.dynamodbRequests),
    { label: 'time to commit, median (s)', of: (run) => median(run.commitSeconds), decimals: 1 },
    {
      label: 'time to commit, max (s)',
      of: (run) => Math.max(...run.commitSeconds),
      decimals: 1,
    },
  ];
}

/**
 * Prints one table: each figure's median over a policy's runs, off and on, and the ratio
 * on ÷ off of those medians.
 *
 * @example
 * ```ts
 * printRetryTable(results);
 * ```
 */
export function printRetryTable(results: readonly RetryRunResult[]): void {
  const off = results.filter((run) => run.variant === 'off');
  const on = results.filter((run) => run.variant === 'on');
  const rows = figuresOf(results).map(({ label, of, decimals = 0 }) => {
    const [offMedian, onMedian] = [median(off.map(of)), median(on.map(of))];
    return {
      figure: label,
      'policy off': Number(offMedian.toFixed(decimals)),
      'policy on': Number(onMedian.toFixed(decimals)),
      'on ÷ off': ratio(onMedian, offMedian),
    };
  });
  console.log(`\nmedians of ${Math.min(off.length, on.length)} interleaved runs of each policy`);
  console.table(rows);
}

function ratio(on: number, off: number): string {
  if (off === 0) return on === 0 ? '—' : 'off had none';
  return `${(on / off).toFixed(2)}×`;
}

/**
 * One run's figures on one line, for the progress output.
 *
 * @example
 * ```ts
 * console.error(`  run 1/3 ${describeRun(result)}`);
 * ```
 */
export function describeRun(run: RetryRunResult): string {
  const idle = run.sqsRequests.get(EMPTY_RECEIVE) ?? 0;
  return `${run.variant}: ${run.downstreamCalls} downstream calls (${run.refusedCalls} while down), ${sqsTotal(run)} SQS requests (+${idle} empty polls), ${total(run.dynamodbRequests)} DynamoDB requests, to commit median ${median(run.commitSeconds).toFixed(1)} s, max ${Math.max(...run.commitSeconds).toFixed(1)} s`;
}

import type { InvariantResult } from '../local/InvariantResult.js';

/**
 * Whether a run passed: its queues drained and every invariant held or was skipped (a skip says
 * why the target cannot show it).
 *
 * @example
 * ```ts
 * const code = runPassed(drained, results) ? 0 : 1;
 * ```
 */
export function runPassed(drained: boolean, results: readonly InvariantResult[]): boolean {
  return drained && results.every((result) => result.holds || result.skipped !== undefined);
}

/**
 * Prints the invariants of a run as `npm start` and `npm run verify:aws` report them: one line
 * each, PASS, FAIL or SKIP, then the verdict.
 *
 * @example
 * ```ts
 * printInvariants(plan.messages.length, drained, results);
 * ```
 */
export function printInvariants(
  messagesSent: number,
  drained: boolean,
  results: readonly InvariantResult[],
): void {
  console.log(`\ninvariants (${messagesSent} messages sent):`);
  console.log(`  ${drained ? 'PASS' : 'FAIL'}  all messages settled (queues drained)`);
  for (const result of results) {
    const verdict = result.holds ? 'PASS' : result.skipped !== undefined ? 'SKIP' : 'FAIL';
    console.log(`  ${verdict}  ${result.name} — ${result.detail}`);
  }
  const skipped = results.filter((result) => result.skipped !== undefined).length;
  const ok = runPassed(drained, results);
  const skips = skipped > 0 ? ` (${skipped} skipped: the target cannot show them)` : '';
  console.log(ok ? `\nall invariants hold${skips}` : '\nINVARIANT VIOLATED');
}

/**
 * A line of `sqs-inbox dlq redrive --jsonl` about one DLQ message: what the run decided and did,
 * and whatever else it says of it.
 */
export interface MessageLine {
  readonly dlqMessageId: string;
  readonly decision: string;
  readonly action: string;
  readonly [field: string]: unknown;
}

/**
 * Every line of a command's `--jsonl` output, parsed: its message lines, then its summary. A line
 * that is not JSON fails the test.
 *
 * @example
 * ```ts
 * const summary = outputLines(run.stdout).at(-1);
 * ```
 */
export function outputLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The lines of a redrive's `--jsonl` output that are about a message (the summary is not), in
 * the order the run handled them.
 *
 * @example
 * ```ts
 * const byId = new Map(messageLines(run.stdout).map((line) => [line.dlqMessageId, line]));
 * ```
 */
export function messageLines(stdout: string): MessageLine[] {
  return outputLines(stdout).filter(
    (line): line is MessageLine => typeof line.dlqMessageId === 'string',
  );
}

/**
 * The `sqs-inbox` commands an operator runs for one deployed function, as the alarm
 * descriptions and dashboards name them. The function name may be a token: the strings resolve
 * at deploy time.
 *
 * @example
 * ```ts
 * const { dlqReport } = operatorCommands(fn.functionName);
 * ```
 */
export function operatorCommands(functionName: string): {
  readonly dlqReport: string;
  readonly dlqRedrive: string;
  readonly message: string;
} {
  const cli = 'npx sqs-inbox';
  return {
    dlqReport: `${cli} dlq report --function ${functionName}`,
    dlqRedrive: `${cli} dlq redrive --function ${functionName}`,
    message: `${cli} message --function ${functionName} --message-id <id>`,
  };
}

/**
 * The command that reports what an outbox relay's dead-letter queue holds.
 *
 * @example
 * ```ts
 * const command = outboxReportCommand(relay.deadLetterQueue.queueUrl);
 * ```
 */
export function outboxReportCommand(deadLetterQueueUrl: string): string {
  return `npx sqs-inbox outbox report --queue-url ${deadLetterQueueUrl}`;
}

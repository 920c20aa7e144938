import type { SQSClient } from '@aws-sdk/client-sqs';

/** One command a {@link fakeSqsClient} was sent: its class name and input. */
export interface SentCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/**
 * A fake SQS client, for what no emulator does on demand (refuse one entry of a batch, throttle,
 * fail a dead-letter send, never answer): it records each command by name and answers as
 * `answer` says — an `Error` is thrown, anything else returned.
 *
 * @example
 * ```ts
 * const { calls, client } = fakeSqsClient((name) => (name === 'SendMessageCommand' ? new Error('gone') : {}));
 * ```
 */
export function fakeSqsClient(answer: (name: string, input: never) => unknown = () => ({})): {
  readonly calls: SentCommand[];
  readonly client: SQSClient;
} {
  const calls: SentCommand[] = [];
  const client = {
    async send(command: { constructor: { name: string }; input: never }) {
      calls.push({ name: command.constructor.name, input: command.input });
      const result = answer(command.constructor.name, command.input);
      if (result instanceof Error) throw result;
      return result;
    },
  };
  return { calls, client: client as unknown as SQSClient };
}

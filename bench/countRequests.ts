import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ReceiveMessageCommandOutput, SQSClient } from '@aws-sdk/client-sqs';

/** The name under which a long poll that returned no message is counted. */
export const EMPTY_RECEIVE = 'ReceiveMessage (empty)';

/**
 * Counts the requests `client` sends from now on, by operation (`TransactWriteItems`,
 * `ReceiveMessage`…), into the map it returns. Counted below the SDK's retries, so every
 * attempt is one request, a refused one too; a receive that returned no message counts as
 * {@link EMPTY_RECEIVE}.
 *
 * @example
 * ```ts
 * const requests = countRequests(sqs);
 * await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
 * requests.get('ReceiveMessage'); // => 1 (or EMPTY_RECEIVE's count)
 * ```
 */
export function countRequests(client: SQSClient | DynamoDBClient): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  // The two clients' stacks differ only in their input and output types, which this reads as
  // plain objects: one of them stands for both.
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName).replace(/Command$/, '');
      try {
        const result = await next(args);
        const { Messages = [] } = result.output as ReceiveMessageCommandOutput;
        count(name === 'ReceiveMessage' && Messages.length === 0 ? EMPTY_RECEIVE : name);
        return result;
      } catch (error) {
        count(name);
        throw error;
      }
    },
    // Low in the step the SDK retries in: inside its retry loop, so once per attempt.
    { step: 'finalizeRequest', priority: 'low', name: 'benchRequestCounter' },
  );
  return counts;
}

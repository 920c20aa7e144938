import { GetFunctionConfigurationCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CONSUMER_NAMES, type ConsumerName } from '../local/demoTraffic.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';

/** A consumer of the deployed reference stack: its queues, its function and its environment. */
export interface DeployedConsumer extends LocalMapping {
  readonly functionName: string;
}

/**
 * A stack output by name; throws, naming the outputs there are, when it is missing.
 *
 * @example
 * ```ts
 * stackOutput(outputs, 'PaymentsTopicArn');
 * ```
 */
export function stackOutput(outputs: Readonly<Record<string, string>>, name: string): string {
  const value = outputs[name];
  if (!value)
    throw new Error(`stack output ${name} is missing; outputs: ${Object.keys(outputs).join(', ')}`);
  return value;
}

/**
 * A consumer's queue as deployed: its URL (the stack output `<Consumer>QueueUrl`) and ARN.
 *
 * @example
 * ```ts
 * const ledger = await deployedQueue(sqs, outputs, 'ledger');
 * ```
 */
export async function deployedQueue(
  sqs: SQSClient,
  outputs: Readonly<Record<string, string>>,
  consumer: ConsumerName,
): Promise<{ queueUrl: string; queueArn: string }> {
  const queueUrl = stackOutput(outputs, `${outputPrefix(consumer)}QueueUrl`);
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { queueUrl, queueArn: Attributes?.QueueArn ?? '' };
}

/**
 * The reference stack's three consumers as deployed: queues and DLQs from the stack outputs,
 * each function's environment (its `INBOX_*` contract, its table names) read from Lambda.
 *
 * @example
 * ```ts
 * const { ledger, inventory, notifier } = await deployedConsumers(clients, outputs);
 * ```
 */
export async function deployedConsumers(
  clients: { readonly sqs: SQSClient; readonly lambda: LambdaClient },
  outputs: Readonly<Record<string, string>>,
): Promise<Record<ConsumerName, DeployedConsumer>> {
  const found = await Promise.all(
    CONSUMER_NAMES.map(async (consumer) => {
      const prefix = outputPrefix(consumer);
      const functionName = stackOutput(outputs, `${prefix}FunctionName`);
      const { Environment } = await clients.lambda.send(
        new GetFunctionConfigurationCommand({ FunctionName: functionName }),
      );
      const deployed: DeployedConsumer = {
        consumer,
        ...(await deployedQueue(clients.sqs, outputs, consumer)),
        deadLetterQueueUrl: stackOutput(outputs, `${prefix}DeadLetterQueueUrl`),
        batchSize: 0,
        maxConcurrency: undefined,
        environment: Environment?.Variables ?? {},
        functionName,
      };
      return [consumer, deployed] as const;
    }),
  );
  return Object.fromEntries(found) as Record<ConsumerName, DeployedConsumer>;
}

function outputPrefix(consumer: ConsumerName): string {
  return `${consumer[0]?.toUpperCase()}${consumer.slice(1)}`;
}

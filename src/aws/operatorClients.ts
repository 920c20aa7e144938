import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { InboxError } from '../errors.js';
import { AwsOutboxSender } from './AwsOutboxSender.js';

/**
 * Where an operator's commands connect: the SDK's standard chain (`AWS_PROFILE`, `AWS_REGION`,
 * `AWS_ENDPOINT_URL[_SERVICE]`, …) unless a field here says otherwise.
 *
 * @example
 * ```ts
 * const connection: OperatorConnection = { profile: 'prod-ops', region: 'eu-west-1' };
 * ```
 */
export interface OperatorConnection {
  readonly profile?: string;
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * The clients an operator's commands use, each built on first use from one connection. The
 * Lambda client is an optional peer (`@aws-sdk/client-lambda`), imported only when a command
 * resolves a consumer by its function; so is the STS client (`@aws-sdk/client-sts`), when an
 * applied redrive records its caller. A missing one is named in a `MissingPeerError`.
 *
 * @example
 * ```ts
 * const clients = operatorClients({ region: 'eu-west-1' });
 * await clients.sqs().send(command);
 * ```
 */
export function operatorClients(connection: OperatorConnection) {
  const config = {
    ...(connection.profile ? { profile: connection.profile } : {}),
    ...(connection.region ? { region: connection.region } : {}),
    ...(connection.endpoint ? { endpoint: connection.endpoint } : {}),
    ...(connection.credentials ? { credentials: { ...connection.credentials } } : {}),
    // An operator waits for an answer, not through the SDK's backoff on a dead endpoint.
    maxAttempts: 3,
  };
  // Every client built, so that `destroy` closes each one's sockets.
  const built: Array<{ destroy(): void }> = [];
  const made = <T extends { destroy(): void }>(client: T): T => {
    built.push(client);
    return client;
  };
  let sqs: SQSClient | undefined;
  let dynamodb: DynamoDBDocumentClient | undefined;
  const sqsClient = () => {
    sqs ??= made(new SQSClient(config));
    return sqs;
  };
  return {
    config,
    sqs: sqsClient,
    dynamodb: () => {
      dynamodb ??= made(DynamoDBDocumentClient.from(new DynamoDBClient(config)));
      return dynamodb;
    },
    /** What the relay's redrive sends with: the outbox sender and the stream reader. */
    outbox: async () => ({
      sender: new AwsOutboxSender({
        sqsClient: sqsClient(),
        snsClient: made(new SNSClient(config)),
        eventBridgeClient: made(new EventBridgeClient(config)),
      }),
      streamsClient: made(new (await importStreams()).DynamoDBStreamsClient(config)),
    }),
    /** The ARN of the credentials' caller (`sts:GetCallerIdentity`, which needs no grant). */
    callerArn: async (): Promise<string> => {
      const sts = await importSts();
      const identity = await made(new sts.STSClient(config)).send(
        new sts.GetCallerIdentityCommand({}),
      );
      return identity.Arn ?? 'unknown';
    },
    destroy: () => {
      for (const client of built.splice(0)) client.destroy();
    },
  };
}

async function importStreams() {
  try {
    return await import('@aws-sdk/client-dynamodb-streams');
  } catch (error) {
    throw new MissingPeerError('@aws-sdk/client-dynamodb-streams', 'outbox redrive', {
      cause: error,
    });
  }
}

async function importSts() {
  try {
    return await import('@aws-sdk/client-sts');
  } catch (error) {
    throw new MissingPeerError('@aws-sdk/client-sts', "the redrive's audit of its caller", {
      cause: error,
    });
  }
}

/** The clients of {@link operatorClients}. */
export type OperatorClients = ReturnType<typeof operatorClients>;

/**
 * An optional peer a command needs is not installed.
 *
 * @example
 * ```ts
 * throw new MissingPeerError('@aws-sdk/client-lambda', '--function');
 * ```
 */
export class MissingPeerError extends InboxError {
  static override readonly errorName: string = 'MissingPeerError';
  constructor(
    readonly packageName: string,
    readonly neededFor: string,
    options?: { cause?: unknown },
  ) {
    super(`${neededFor} needs ${packageName}: npm install ${packageName}`, options);
  }
}

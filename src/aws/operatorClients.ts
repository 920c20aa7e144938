import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { InboxError } from '../errors.js';

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
      // The document client's own destroy does nothing: the client under it holds the sockets.
      dynamodb ??= DynamoDBDocumentClient.from(made(new DynamoDBClient(config)));
      return dynamodb;
    },
    /** What the relay's redrive sends with: the outbox sender and the stream reader. */
    outbox: async () => {
      const [sns, eventBridge, streams] = await Promise.all([
        importPeer(() => import('@aws-sdk/client-sns'), '@aws-sdk/client-sns', OUTBOX_COMMANDS),
        importPeer(
          () => import('@aws-sdk/client-eventbridge'),
          '@aws-sdk/client-eventbridge',
          OUTBOX_COMMANDS,
        ),
        importPeer(
          () => import('@aws-sdk/client-dynamodb-streams'),
          '@aws-sdk/client-dynamodb-streams',
          OUTBOX_COMMANDS,
        ),
      ]);
      // Loaded after its peers: it imports the SNS and EventBridge clients itself.
      const { AwsOutboxSender } = await import('./AwsOutboxSender.js');
      return {
        sender: new AwsOutboxSender({
          sqsClient: sqsClient(),
          snsClient: made(new sns.SNSClient(config)),
          eventBridgeClient: made(new eventBridge.EventBridgeClient(config)),
        }),
        streamsClient: made(new streams.DynamoDBStreamsClient(config)),
      };
    },
    /** The ARN of the credentials' caller (`sts:GetCallerIdentity`, which needs no grant). */
    callerArn: async (): Promise<string> => {
      const sts = await importPeer(
        () => import('@aws-sdk/client-sts'),
        '@aws-sdk/client-sts',
        "the redrive's audit of its caller",
      );
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

const OUTBOX_COMMANDS = 'outbox report|redrive';

/**
 * An optional peer, loaded on first use, or a `MissingPeerError` naming it and what needs it.
 *
 * @example
 * ```ts
 * const lambda = await importPeer(() => import('@aws-sdk/client-lambda'), '@aws-sdk/client-lambda', '--function');
 * ```
 */
export async function importPeer<T>(
  load: () => Promise<T>,
  packageName: string,
  neededFor: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new MissingPeerError(packageName, neededFor, { cause: error });
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

import { randomUUID } from 'node:crypto';
import {
  type AttributeDefinition,
  CreateTableCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateEmailIdentityCommand } from '@aws-sdk/client-sesv2';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { InboxEnvironment } from 'sqs-inbox/constants';
import type { LocalClients } from './localClients.js';
import { provisionUpstreams } from './provisionUpstreams.js';
import type { Template } from './referenceTemplate.js';
import { isStream, type LocalStreamSpec, streamMappingsOf } from './streamMappingsOf.js';

/** One queue → function wiring of the template, with everything resolved to local names. */
export interface LocalMapping {
  readonly consumer: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly batchSize: number;
  readonly maxConcurrency: number | undefined;
  readonly environment: Readonly<Record<string, string>>;
}

/** What `npm start` created: resource names (queue URLs) by logical id, and the mappings to run. */
export interface LocalResources {
  readonly names: Readonly<Record<string, string>>;
  readonly mappings: readonly LocalMapping[];
  /** The stream mappings (the outbox relays), to run with `LocalStreamMapping`. */
  readonly streamMappings: readonly LocalStreamSpec[];
}

type Resource = Template['Resources'][string];
type Queue = { url: string; arn: string };

/**
 * Creates the template's DynamoDB tables (keys, billing, TTL), SQS queues (FIFO, content-based
 * deduplication, retention, visibility timeout, redrive policy), S3 buckets, SES email
 * identities, SNS topics and subscriptions, and EventBridge buses and rules
 * (`provisionUpstreams`) under a run prefix, and resolves each event source mapping's function
 * environment (`Ref`/`Fn::GetAtt` of tables, queues and buckets) to the created names — what
 * CloudFormation would have done.
 */
export async function provisionFromTemplate(
  template: Template,
  clients: LocalClients,
): Promise<LocalResources> {
  const prefix = `sqs-inbox-${randomUUID().slice(0, 6)}`;
  const entries = Object.entries(template.Resources);
  // Tables and buckets: the name each logical id got.
  const named = new Map<string, string>();
  for (const [id, resource] of entries.filter(([, r]) => r.Type === 'AWS::DynamoDB::Table')) {
    named.set(id, await createTable(clients.dynamodb, `${prefix}-${id}`, resource));
  }
  for (const [id] of entries.filter(([, r]) => r.Type === 'AWS::S3::Bucket')) {
    // Bucket names are lower case; one run's buckets share its prefix.
    const name = `${prefix}-${id}`.toLowerCase();
    await clients.s3.send(new CreateBucketCommand({ Bucket: name }));
    named.set(id, name);
  }
  for (const [, resource] of entries.filter(([, r]) => r.Type === 'AWS::SES::EmailIdentity')) {
    const identity = String(resource.Properties?.EmailIdentity);
    // Emulators verify an identity at once; creating it again is refused as existing.
    await clients.ses
      .send(new CreateEmailIdentityCommand({ EmailIdentity: identity }))
      .catch((error: Error) => {
        if (error.name !== 'AlreadyExistsException') throw error;
      });
  }
  const queues = new Map<string, Queue>();
  const queueEntries = entries.filter(([, r]) => r.Type === 'AWS::SQS::Queue');
  const hasRedrive = ([, r]: [string, Resource]) => r.Properties?.RedrivePolicy !== undefined;
  // Dead-letter queues first: the redrive policies point at them.
  for (const [id, resource] of [
    ...queueEntries.filter((e) => !hasRedrive(e)),
    ...queueEntries.filter(hasRedrive),
  ]) {
    queues.set(id, await createQueue(clients.sqs, `${prefix}-${id}`, resource, queues));
  }
  await provisionUpstreams(template, prefix, clients, (id) => queues.get(id)?.arn);
  const resolve = (value: unknown) => resolveValue(value, named, queues);
  const mappings = entries
    .filter(([, r]) => r.Type === 'AWS::Lambda::EventSourceMapping' && !isStream(r))
    .map(([, mapping]) => toLocalMapping(mapping, template, queues, resolve));
  const streamMappings = streamMappingsOf(template, resolve);
  const names = Object.fromEntries([
    ...named,
    ...[...queues].map(([id, q]) => [id, q.url] as const),
  ]);
  return { names, mappings, streamMappings };
}

async function createTable(
  client: DynamoDBClient,
  name: string,
  resource: Resource,
): Promise<string> {
  const p = resource.Properties ?? {};
  await client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: p.KeySchema as KeySchemaElement[],
      AttributeDefinitions: p.AttributeDefinitions as AttributeDefinition[],
      BillingMode: (p.BillingMode as 'PAY_PER_REQUEST' | undefined) ?? 'PAY_PER_REQUEST',
      ...(p.StreamSpecification
        ? {
            StreamSpecification: {
              StreamEnabled: true,
              StreamViewType: (p.StreamSpecification as { StreamViewType: 'NEW_IMAGE' })
                .StreamViewType,
            },
          }
        : {}),
    }),
  );
  const ttl = p.TimeToLiveSpecification as { AttributeName: string; Enabled: boolean } | undefined;
  if (ttl?.Enabled) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
      }),
    );
  }
  return name;
}

async function createQueue(
  client: SQSClient,
  baseName: string,
  resource: Resource,
  created: Map<string, Queue>,
): Promise<Queue> {
  const p = resource.Properties ?? {};
  const attributes: Record<string, string> = {};
  if (p.FifoQueue) attributes.FifoQueue = 'true';
  if (p.ContentBasedDeduplication) attributes.ContentBasedDeduplication = 'true';
  if (p.VisibilityTimeout !== undefined) attributes.VisibilityTimeout = String(p.VisibilityTimeout);
  if (p.MessageRetentionPeriod !== undefined)
    attributes.MessageRetentionPeriod = String(p.MessageRetentionPeriod);
  const redrive = p.RedrivePolicy as
    | { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] }; maxReceiveCount: number }
    | undefined;
  if (redrive) {
    const target = created.get(redrive.deadLetterTargetArn['Fn::GetAtt'][0]);
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: target?.arn,
      maxReceiveCount: redrive.maxReceiveCount,
    });
  }
  const name = p.FifoQueue ? `${baseName}.fifo` : baseName;
  const { QueueUrl = '' } = await client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl, arn: Attributes?.QueueArn ?? '' };
}

function resolveValue(
  value: unknown,
  named: Map<string, string>,
  queues: Map<string, Queue>,
): string {
  if (typeof value === 'string') return value;
  const ref = (value as { Ref?: string }).Ref;
  const [id, attribute] = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
  const target = ref ?? id ?? '';
  if (named.has(target)) return named.get(target) ?? '';
  const queue = queues.get(target);
  if (queue) return attribute === 'Arn' ? queue.arn : queue.url;
  throw new Error(
    `cannot resolve ${JSON.stringify(value)} locally: it names no table, bucket or queue of the template`,
  );
}

function toLocalMapping(
  mapping: Resource,
  template: Template,
  queues: Map<string, Queue>,
  resolve: (value: unknown) => string,
): LocalMapping {
  const p = mapping.Properties ?? {};
  const functionId = (p.FunctionName as { Ref: string }).Ref;
  const functionEnvironment = template.Resources[functionId]?.Properties?.Environment as
    | { Variables?: Record<string, unknown> }
    | undefined;
  const variables = functionEnvironment?.Variables ?? {};
  const environment = Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [name, resolve(value)]),
  );
  const queueId = (p.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const queue = queues.get(queueId);
  if (!queue)
    throw new Error(`event source mapping of ${functionId} reads an unknown queue ${queueId}`);
  return {
    consumer: environment[InboxEnvironment.Consumer] ?? functionId,
    queueUrl: queue.url,
    queueArn: queue.arn,
    deadLetterQueueUrl: environment[InboxEnvironment.DeadLetterQueueUrl] ?? '',
    batchSize: Number(p.BatchSize ?? 10),
    maxConcurrency: (p.ScalingConfig as { MaximumConcurrency?: number } | undefined)
      ?.MaximumConcurrency,
    environment,
  };
}

import { randomUUID } from 'node:crypto';
import {
  DescribeRuleCommand,
  ListEventBusesCommand,
  ListRuleNamesByTargetCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  GetSubscriptionAttributesCommand,
  ListSubscriptionsCommand,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import type { LocalClients } from './localClients.js';

/** What feeds a consumer's queue, found on the emulator from the queue's ARN. */
export type Upstream =
  | { readonly kind: 'sqs' }
  | {
      readonly kind: 'sns';
      readonly topicArn: string;
      readonly raw: boolean;
      readonly tapUrl: string;
    }
  | {
      readonly kind: 'eventbridge';
      readonly busName: string;
      readonly source: string;
      readonly detailType: string;
      readonly tapUrl: string;
    };

/** An upstream found, and how to take its tap away again. */
export interface FoundUpstream {
  readonly upstream: Upstream;
  readonly removeTap: () => Promise<void>;
}

const NO_TAP = async () => {};
const TAP_TARGET_ID = 'local-tap';

/**
 * What feeds the queue `queueArn`: an SNS subscription, an EventBridge rule target, or nothing;
 * a queue fed by both is taken as fed by its topic, unless `prefer` says `eventbridge`. The
 * upstream found is tapped — a second subscription or rule target, to a queue of its own — so
 * that its envelopes can be read; `removeTap` takes the tap away.
 *
 * @example
 * ```ts
 * const { upstream, removeTap } = await findUpstream(clients, queueArn, 'sns');
 * ```
 */
export async function findUpstream(
  clients: LocalClients,
  queueArn: string,
  prefer: 'sns' | 'eventbridge',
): Promise<FoundUpstream> {
  const rule = await findRule(clients, queueArn);
  const subscription =
    prefer === 'eventbridge' && rule ? undefined : await findSubscription(clients, queueArn);
  if (subscription) return tapTopic(clients, queueArn, subscription);
  if (!rule) return { upstream: { kind: 'sqs' }, removeTap: NO_TAP };
  const tapUrl = await createTap(clients, queueArn, false, 'events.amazonaws.com', rule.arn);
  await clients.events.send(
    new PutTargetsCommand({
      Rule: rule.name,
      EventBusName: rule.busName,
      Targets: [{ Id: TAP_TARGET_ID, Arn: await arnOf(clients, tapUrl) }],
    }),
  );
  const removeTap = () =>
    deletingQueue(clients, tapUrl, () =>
      clients.events.send(
        new RemoveTargetsCommand({
          Rule: rule.name,
          EventBusName: rule.busName,
          Ids: [TAP_TARGET_ID],
        }),
      ),
    );
  const { busName, source, detailType } = rule;
  return { upstream: { kind: 'eventbridge', busName, source, detailType, tapUrl }, removeTap };
}

async function tapTopic(
  clients: LocalClients,
  queueArn: string,
  subscription: { topicArn: string; subscriptionArn: string },
): Promise<FoundUpstream> {
  const { topicArn } = subscription;
  const { Attributes = {} } = await clients.sns.send(
    new GetSubscriptionAttributesCommand({ SubscriptionArn: subscription.subscriptionArn }),
  );
  const raw = Attributes.RawMessageDelivery === 'true';
  const fifo = topicArn.endsWith('.fifo');
  const tapUrl = await createTap(clients, queueArn, fifo, 'sns.amazonaws.com', topicArn);
  const { SubscriptionArn } = await clients.sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: await arnOf(clients, tapUrl),
      Attributes: raw ? { RawMessageDelivery: 'true' } : {},
      ReturnSubscriptionArn: true,
    }),
  );
  const removeTap = () =>
    deletingQueue(clients, tapUrl, async () => {
      if (SubscriptionArn) await clients.sns.send(new UnsubscribeCommand({ SubscriptionArn }));
    });
  return { upstream: { kind: 'sns', topicArn, raw, tapUrl }, removeTap };
}

/** Runs `detach` (the tap's subscription or target), then deletes the tap queue whatever it did. */
async function deletingQueue(
  clients: LocalClients,
  queueUrl: string,
  detach: () => Promise<unknown>,
): Promise<void> {
  try {
    await detach();
  } finally {
    await clients.sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
  }
}

async function findSubscription(clients: LocalClients, queueArn: string) {
  let NextToken: string | undefined;
  do {
    const page = await clients.sns.send(new ListSubscriptionsCommand({ NextToken }));
    const found = page.Subscriptions?.find((s) => s.Protocol === 'sqs' && s.Endpoint === queueArn);
    if (found?.TopicArn && found.SubscriptionArn) {
      return { topicArn: found.TopicArn, subscriptionArn: found.SubscriptionArn };
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return undefined;
}

async function findRule(clients: LocalClients, queueArn: string) {
  const { EventBuses = [] } = await clients.events.send(new ListEventBusesCommand({}));
  for (const { Name: busName } of EventBuses) {
    if (!busName) continue;
    const { RuleNames = [] } = await clients.events.send(
      new ListRuleNamesByTargetCommand({ TargetArn: queueArn, EventBusName: busName }),
    );
    const [name] = RuleNames;
    if (!name) continue;
    const { EventPattern = '{}', Arn = '' } = await clients.events.send(
      new DescribeRuleCommand({ Name: name, EventBusName: busName }),
    );
    const pattern = JSON.parse(EventPattern) as { source?: string[]; 'detail-type'?: string[] };
    return {
      name,
      busName,
      arn: Arn,
      source: pattern.source?.[0] ?? 'local.producer',
      detailType: pattern['detail-type']?.[0] ?? 'LocalEvent',
    };
  }
  return undefined;
}

/**
 * A queue beside `queueArn` that `service` (SNS, EventBridge) may send to from `sourceArn` only:
 * AWS delivers nothing to a queue without that policy; an emulator ignores it.
 */
async function createTap(
  clients: LocalClients,
  queueArn: string,
  fifo: boolean,
  service: string,
  sourceArn: string,
): Promise<string> {
  const name = `tap-${randomUUID().slice(0, 8)}-${queueArn
    .split(':')
    .pop()
    ?.replace(/\.fifo$/, '')
    .slice(-50)}`;
  const { QueueUrl = '' } = await clients.sqs.send(
    new CreateQueueCommand({
      QueueName: fifo ? `${name}.fifo` : name,
      Attributes: fifo ? { FifoQueue: 'true' } : {},
    }),
  );
  const Resource = await arnOf(clients, QueueUrl);
  const policy = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: service },
        Action: 'sqs:SendMessage',
        Resource,
        Condition: { ArnEquals: { 'aws:SourceArn': sourceArn } },
      },
    ],
  };
  await clients.sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl,
      Attributes: { Policy: JSON.stringify(policy) },
    }),
  );
  return QueueUrl;
}

async function arnOf(clients: LocalClients, queueUrl: string): Promise<string> {
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return Attributes?.QueueArn ?? '';
}

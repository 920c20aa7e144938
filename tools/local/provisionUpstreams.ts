import {
  CreateEventBusCommand,
  type EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  type Target,
} from '@aws-sdk/client-eventbridge';
import { CreateTopicCommand, type SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import type { Template } from './referenceTemplate.js';

type Resource = Template['Resources'][string];
type Arn = { 'Fn::GetAtt': [string, string] } | { Ref: string };

/**
 * Creates the template's SNS topics and their SQS subscriptions, its EventBridge buses and
 * rules with their SQS targets (dead-letter queue and retry policy included), under the run
 * prefix — what CloudFormation would do. `queueArn` resolves a queue's logical id.
 *
 * @example
 * ```ts
 * await provisionUpstreams(template, prefix, clients, (id) => queues.get(id)?.arn);
 * ```
 */
export async function provisionUpstreams(
  template: Template,
  prefix: string,
  clients: { sns: SNSClient; events: EventBridgeClient },
  queueArn: (logicalId: string) => string | undefined,
): Promise<void> {
  const entries = Object.entries(template.Resources);
  const topics = new Map<string, string>();
  for (const [id, topic] of entries.filter(([, r]) => r.Type === 'AWS::SNS::Topic')) {
    const fifo = topic.Properties?.FifoTopic === true;
    const { TopicArn = '' } = await clients.sns.send(
      new CreateTopicCommand({
        Name: `${prefix}-${id}${fifo ? '.fifo' : ''}`,
        Attributes: fifo ? { FifoTopic: 'true' } : {},
      }),
    );
    topics.set(id, TopicArn);
  }
  const buses = new Map<string, string>();
  for (const [id] of entries.filter(([, r]) => r.Type === 'AWS::Events::EventBus')) {
    await clients.events.send(new CreateEventBusCommand({ Name: `${prefix}-${id}` }));
    buses.set(id, `${prefix}-${id}`);
  }
  const arnOf = (value: unknown): string => {
    const [id = ''] = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [
      (value as { Ref?: string }).Ref,
    ];
    const arn = topics.get(id) ?? queueArn(id);
    if (!arn) throw new Error(`cannot resolve ${JSON.stringify(value)}: no topic or queue ${id}`);
    return arn;
  };
  for (const [, subscription] of entries.filter(([, r]) => r.Type === 'AWS::SNS::Subscription')) {
    await subscribe(clients.sns, subscription, arnOf);
  }
  for (const [id, rule] of entries.filter(([, r]) => r.Type === 'AWS::Events::Rule')) {
    await putRule(clients.events, `${prefix}-${id}`, rule, buses, arnOf);
  }
}

async function subscribe(sns: SNSClient, resource: Resource, arnOf: (value: unknown) => string) {
  const p = resource.Properties ?? {};
  if (p.Protocol !== 'sqs') return;
  const attributes: Record<string, string> = {};
  if (p.RawMessageDelivery) attributes.RawMessageDelivery = 'true';
  if (p.FilterPolicy) attributes.FilterPolicy = JSON.stringify(p.FilterPolicy);
  if (p.FilterPolicyScope) attributes.FilterPolicyScope = String(p.FilterPolicyScope);
  await sns.send(
    new SubscribeCommand({
      TopicArn: arnOf(p.TopicArn),
      Protocol: 'sqs',
      Endpoint: arnOf(p.Endpoint),
      Attributes: attributes,
    }),
  );
}

async function putRule(
  events: EventBridgeClient,
  name: string,
  resource: Resource,
  buses: Map<string, string>,
  arnOf: (value: unknown) => string,
) {
  const p = resource.Properties ?? {};
  const busRef = (p.EventBusName as { Ref?: string } | undefined)?.Ref;
  const EventBusName = busRef ? buses.get(busRef) : undefined;
  await events.send(
    new PutRuleCommand({ Name: name, EventBusName, EventPattern: JSON.stringify(p.EventPattern) }),
  );
  const targets = (p.Targets as Array<Record<string, unknown>> | undefined) ?? [];
  await events.send(
    new PutTargetsCommand({
      Rule: name,
      EventBusName,
      Targets: targets.map(
        (target): Target => ({
          Id: String(target.Id),
          Arn: arnOf(target.Arn as Arn),
          ...(target.DeadLetterConfig
            ? { DeadLetterConfig: { Arn: arnOf((target.DeadLetterConfig as { Arn: Arn }).Arn) } }
            : {}),
          ...(target.RetryPolicy ? { RetryPolicy: target.RetryPolicy } : {}),
          ...(target.SqsParameters ? { SqsParameters: target.SqsParameters } : {}),
        }),
      ),
    }),
  );
}

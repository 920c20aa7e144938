import type { Message } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { localClients } from '../../tools/local/localClients.js';
import { payloadOf, UpstreamDelivery } from '../../tools/local/UpstreamDelivery.js';
import { testAws } from '../harness/aws.js';
import { useUpstreams } from '../support/upstreams.js';

const aws = testAws();
const upstreams = useUpstreams(aws);
const clients = localClients({ dynamodb: aws.endpoints.dynamodb, sqs: aws.endpoints.sqs });
afterAll(async () => {
  await aws.cleanup();
  for (const client of Object.values(clients)) client.destroy();
});

async function receiveAll(queueUrl: string, count: number): Promise<Message[]> {
  const received: Message[] = [];
  for (let i = 0; i < 10 && received.length < count; i++)
    received.push(...(await aws.receive(queueUrl)));
  return received;
}

describe('the local tools’ UpstreamDelivery', () => {
  it('publishes a message sent twice once and delivers SNS’s envelope of it again as a new SQS message', async () => {
    const queue = await aws.createQueue(aws.uniqueName('delivery-sns'));
    await upstreams.topicTo(queue.arn);
    const delivery = await UpstreamDelivery.find(clients, {
      payments: { queueUrl: queue.url, queueArn: queue.arn },
    });
    const message = { consumer: 'payments' as const, body: '{"eventId":"e-1"}' };

    await delivery.send([message, message]);

    const [first, second] = await receiveAll(queue.url, 2);
    expect(delivery.upstreamOf('payments').kind).toBe('sns');
    expect(second?.MessageId).not.toBe(first?.MessageId);
    expect(JSON.parse(second?.Body ?? '{}').MessageId).toBe(
      JSON.parse(first?.Body ?? '{}').MessageId,
    );
    expect(payloadOf(second?.Body ?? '')).toBe(message.body);
  });

  it('puts a message sent twice on the bus once and delivers EventBridge’s event again as a new SQS message', async () => {
    const queue = await aws.createQueue(aws.uniqueName('delivery-events'));
    await upstreams.busTo(queue.arn);
    const delivery = await UpstreamDelivery.find(clients, {
      orders: { queueUrl: queue.url, queueArn: queue.arn },
    });
    const message = { consumer: 'orders' as const, body: '{"orderId":"o-1"}' };

    await delivery.send([message]);
    await delivery.send([message]);

    const [first, second] = await receiveAll(queue.url, 2);
    expect(delivery.upstreamOf('orders')).toMatchObject({
      kind: 'eventbridge',
      source: 'shop.orders',
    });
    expect(JSON.parse(second?.Body ?? '{}').id).toBe(JSON.parse(first?.Body ?? '{}').id);
    expect(payloadOf(first?.Body ?? '')).toBe(message.body);
  });
});

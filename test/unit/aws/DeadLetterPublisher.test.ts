import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  DeadLetterPublisher,
  DeadLetterSendError,
  InvalidConfigurationError,
  PermanentError,
} from '../../../src/index.js';
import { sqsRecord } from '../../support/sqsRecords.js';

describe('DeadLetterPublisher', () => {
  it('refuses to send a message back to the queue it came from, which would loop forever', async () => {
    const record = sqsRecord({ id: 1 });
    let sent = 0;
    const client = new SQSClient({ region: 'us-east-1' });
    client.send = (async () => {
      sent++;
      return {};
    }) as never;
    const sourceUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders';

    const send = new DeadLetterPublisher(sourceUrl, client).send(
      record,
      new PermanentError('x'),
      'c',
      { key: 'k' },
    );

    await expect(send).rejects.toBeInstanceOf(DeadLetterSendError);
    await expect(send).rejects.toMatchObject({ cause: expect.any(InvalidConfigurationError) });
    expect(sent).toBe(0);
  });
});

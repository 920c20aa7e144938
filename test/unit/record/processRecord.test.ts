import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import type { ProcessorOptions } from '../../../src/core/ProcessorSettings.js';
import { resolveOptions } from '../../../src/core/resolveOptions.js';
import {
  KeyDerivationError,
  MessageParseError,
  SchemaValidationError,
} from '../../../src/errors.js';
import { DynamoDBInboxStore, PermanentError, RecordStatus } from '../../../src/index.js';
import { processRecord } from '../../../src/record/processRecord.js';
import { countingMetrics, recordingLogger, sqsRecord } from '../../support/sqsRecords.js';
import { withOptions } from '../../support/withOptions.js';

// These records fail before any DynamoDB call, so the store's client is never built.
const store = new DynamoDBInboxStore({ tableName: 'inbox', clientConfig: { region: 'us-east-1' } });
const neverCalled = async () => {
  throw new Error('the handler must not run');
};

function options(overrides: Record<string, unknown> = {}) {
  return resolveOptions(
    withOptions<ProcessorOptions>(
      { store, consumer: 'unit', key: () => 'k', observability: { logger: recordingLogger() } },
      overrides as Partial<ProcessorOptions>,
    ),
    (url, client) => new DeadLetterPublisher(url, client),
  );
}

describe('processRecord before the transaction', () => {
  it.each([
    {
      case: 'throws',
      key: () => {
        throw new Error('no id');
      },
      message: /the key function threw Error\);/,
    },
    { case: 'returns an empty string', key: () => '', message: /an empty string/ },
    { case: 'returns a number', key: () => 42, message: /the dedup key is a number;/ },
    {
      case: 'returns over 1,024 bytes',
      key: () => 'é'.repeat(513),
      message: /a string of 1026 bytes; .*at most 1,024 bytes/,
    },
  ])('fails permanently when the key function $case', async ({ key, message }) => {
    const outcome = await processRecord(
      sqsRecord({ id: 1 }),
      undefined,
      neverCalled,
      options({ key }),
    );

    expect(outcome.status).toBe(RecordStatus.Failed);
    expect(outcome.error).toBeInstanceOf(KeyDerivationError);
    expect(outcome.error).toBeInstanceOf(PermanentError);
    expect((outcome.error as Error).message).toMatch(message);
  });

  it('fails permanently on a body that is not JSON, naming the message', async () => {
    const record = sqsRecord('not json');

    const outcome = await processRecord(record, undefined, neverCalled, options());

    expect(outcome.error).toBeInstanceOf(MessageParseError);
    expect((outcome.error as Error).message).toContain(record.messageId);
  });

  it('fails permanently on a schema violation, listing each issue with its path', async () => {
    const schema = z.object({ order: z.object({ quantity: z.number().int().positive() }) });
    const metrics = countingMetrics();

    const outcome = await processRecord(
      sqsRecord({ order: { quantity: -1 } }),
      undefined,
      neverCalled,
      options({ schema, observability: { metrics } }),
    );

    expect(outcome.error).toBeInstanceOf(SchemaValidationError);
    expect((outcome.error as SchemaValidationError).issues).toEqual([
      expect.objectContaining({ path: 'order.quantity' }),
    ]);
    expect(metrics.count('InboxPermanentFailures')).toBe(1);
  });

  it('hands the custom parser’s value to the key function', async () => {
    const seen: unknown[] = [];
    const parser = (raw: string) => Object.fromEntries([raw.split('=')]);

    await processRecord(
      sqsRecord('eventId=evt-9'),
      undefined,
      neverCalled,
      options({
        parser,
        key: ({ body }: { body: unknown }) => {
          seen.push(body);
          return '';
        },
      }),
    );

    expect(seen).toEqual([{ eventId: 'evt-9' }]);
  });
});

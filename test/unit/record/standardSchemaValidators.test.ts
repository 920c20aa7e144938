import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import type { ProcessorOptions } from '../../../src/core/ProcessorSettings.js';
import { resolveOptions } from '../../../src/core/resolveOptions.js';
import { SchemaValidationError } from '../../../src/errors.js';
import { DynamoDBInboxStore, RecordStatus } from '../../../src/index.js';
import { processRecord } from '../../../src/record/processRecord.js';
import { recordingLogger, sqsRecord } from '../../support/sqsRecords.js';

// These records fail before any DynamoDB call, or reach only the handler that records the body.
const store = new DynamoDBInboxStore({ tableName: 'inbox', clientConfig: { region: 'us-east-1' } });
const SECRET = 'card-4111-1111';

/** The same order schema in each validator the docs' installation page names (zod 4, valibot 1, arktype 2): quantity a positive integer. */
const VALIDATORS = [
  {
    name: 'zod 4',
    schema: z.object({
      order: z.object({ items: z.array(z.object({ quantity: z.number().int().positive() })) }),
    }),
  },
  {
    name: 'valibot 1',
    schema: v.object({
      order: v.object({
        items: v.array(v.object({ quantity: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
      }),
    }),
  },
  {
    name: 'valibot 1 (async)',
    schema: v.objectAsync({
      order: v.objectAsync({
        items: v.arrayAsync(
          v.objectAsync({
            quantity: v.pipeAsync(
              v.number(),
              v.checkAsync(async (n) => Number.isInteger(n) && n > 0, 'quantity must be positive'),
            ),
          }),
        ),
      }),
    }),
  },
  {
    name: 'arktype 2',
    schema: type({ order: { items: type({ quantity: 'number.integer > 0' }).array() } }),
  },
] as const;

async function processWith(schema: unknown, body: unknown) {
  const seen: unknown[] = [];
  const options = resolveOptions(
    {
      store,
      consumer: 'unit',
      key: () => 'k',
      schema,
      observability: { logger: recordingLogger() },
    } as ProcessorOptions,
    (url, client) => new DeadLetterPublisher(url, client),
  );
  const outcome = await processRecord(
    sqsRecord(body),
    undefined,
    async ({ body: parsed }) => {
      seen.push(parsed);
      throw new Error('stop before the transaction');
    },
    options,
  );
  return { outcome, seen };
}

describe.each(VALIDATORS)('a Standard Schema v1 validator: $name', ({ schema }) => {
  it('hands the handler the validated body', async () => {
    const body = { order: { items: [{ quantity: 2 }] } };

    const { seen } = await processWith(schema, body);

    expect(seen).toEqual([body]);
  });

  it('fails permanently at the nested path, with no value of the body in the message', async () => {
    const { outcome, seen } = await processWith(schema, {
      order: { items: [{ quantity: 1 }, { quantity: SECRET }] },
    });

    expect(seen).toEqual([]);
    expect(outcome.status).toBe(RecordStatus.Failed);
    expect(outcome.error).toBeInstanceOf(SchemaValidationError);
    const error = outcome.error as SchemaValidationError;
    expect(error.issues.map((issue) => issue.path)).toEqual(['order.items.1.quantity']);
    expect(error.message).toContain('order.items.1.quantity');
    expect(error.message).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });
});

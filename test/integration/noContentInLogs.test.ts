import { Logger } from '@aws-lambda-powertools/logger';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadLetterAttribute, keyHash } from '../../src/constants/index.js';
import { createBatchProcessor, createConsoleLogger, type InboxLogger } from '../../src/index.js';
import { useLedger } from '../support/ledgerFixture.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const SECRET = 'hunter2-secret';

type Body = { id?: string; amount?: unknown; note?: string };

/** A validator that quotes the received value in its issue message, as some libraries do. */
const quotingSchema: StandardSchemaV1<Body> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => {
      const body = value as Body;
      return typeof body.amount === 'string'
        ? {
            issues: [{ message: `expected a number, received "${body.amount}"`, path: ['amount'] }],
          }
        : { value: body };
    },
  },
};

afterEach(() => vi.restoreAllMocks());

/** Everything written to stdout and stderr while `run` runs. */
async function captureOutput(run: () => Promise<unknown>): Promise<string> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  vi.spyOn(console, 'log').mockImplementation((line) => capture(line));
  vi.spyOn(console, 'error').mockImplementation((line) => capture(line));
  await run();
  vi.restoreAllMocks();
  return written.join('\n');
}

/** One record per way content used to leak: each fails and is dead-lettered or retried. */
function leakyRecords() {
  const mismatchKey = `${SECRET}-key-${Math.random()}`;
  return {
    mismatchKey,
    first: sqsRecord({ id: mismatchKey, note: 'original' }),
    records: [
      sqsRecord(`{"password": ${SECRET}}`), // JSON.parse quotes the body in its message
      sqsRecord({ id: `schema-${Math.random()}`, amount: SECRET }), // the validator quotes it
      sqsRecord({ note: SECRET }), // the key function returns the body itself
      sqsRecord({ id: mismatchKey, note: 'another body' }), // same key, other body
      sqsRecord({ id: `throws-${Math.random()}`, note: 'throw' }), // a thrown non-Error value
      sqsRecord({ id: `condition-${Math.random()}`, note: 'condition' }), // a business key in a failed condition
      sqsRecord({ id: `twice-${Math.random()}`, note: 'twice' }), // a business key written twice
    ],
  };
}

async function runLeaky(logger: InboxLogger, logKeys?: boolean) {
  const dlq = await aws.createQueue(aws.uniqueName('content-dlq'));
  const processor = createBatchProcessor<typeof quotingSchema>(
    async ({ body }, tx) => {
      if (body.note === 'throw') throw { response: { body: SECRET } };
      const Key = { accountId: `${SECRET}@example.com` };
      if (body.note === 'condition' || body.note === 'twice') {
        tx.update({
          TableName: ledger.tables.accounts,
          Key,
          UpdateExpression: 'ADD balanceCents :one',
          ConditionExpression: 'attribute_exists(accountId)',
          ExpressionAttributeValues: { ':one': 1 },
        });
      }
      if (body.note === 'twice') tx.delete({ TableName: ledger.tables.accounts, Key });
    },
    {
      store: ledger.store,
      consumer: 'content',
      schema: quotingSchema,
      key: ({ body }) => (body.id ?? body) as string,
      deadLetter: { queueUrl: dlq.url, client: aws.sqs },
      observability: { logger, ...(logKeys === undefined ? {} : { logKeys }) },
    },
  );
  const { first, records, mismatchKey } = leakyRecords();
  await captureOutput(() => processor.process(sqsEvent(first))); // its lines are not under test
  let outcomes: Awaited<ReturnType<typeof processor.processRecords>> = [];
  const output = await captureOutput(async () => {
    outcomes = await processor.processRecords(sqsEvent(...records));
  });
  return { output, outcomes, deadLetters: await aws.receive(dlq.url), mismatchKey };
}

describe('no body content and no key value reach logs, error messages or DLQ attributes by default', () => {
  it.each([
    { logger: 'the default console logger', create: () => createConsoleLogger('DEBUG') },
    {
      logger: 'Powertools Logger (it prints every field of an error)',
      create: () => new Logger({ serviceName: 'content', logLevel: 'DEBUG' }),
    },
  ])('with $logger', async ({ create }) => {
    const { output, outcomes, deadLetters, mismatchKey } = await runLeaky(create());

    expect(outcomes.map((outcome) => outcome.error?.constructor.name)).toEqual([
      'MessageParseError',
      'SchemaValidationError',
      'KeyDerivationError',
      'PayloadMismatchError',
      'Object',
      'BusinessConditionFailedError',
      'TransactionLimitError',
    ]);
    expect(output).toContain('MessageParseError');
    expect(output).not.toContain('hunter2');
    for (const outcome of outcomes) {
      if (outcome.error instanceof Error) expect(outcome.error.message).not.toContain('hunter2');
    }
    expect(deadLetters).toHaveLength(5);
    const attributes = JSON.stringify(deadLetters.map((message) => message.MessageAttributes));
    expect(attributes).not.toContain('hunter2');
    expect(attributes).toContain(keyHash(mismatchKey));
    expect(attributes).not.toContain(`"${DeadLetterAttribute.Key}"`);
  });

  it('writes the key itself into logs and inbox.key with logKeys: true', async () => {
    const { output, deadLetters, mismatchKey } = await runLeaky(createConsoleLogger('DEBUG'), true);

    expect(output).toContain(mismatchKey);
    const mismatch = deadLetters.find(
      (message) =>
        message.MessageAttributes?.[DeadLetterAttribute.Key]?.StringValue === mismatchKey,
    );
    expect(mismatch).toBeDefined();
  });

  it('with a custom parser whose error quotes the body, and a key function that throws one', async () => {
    const logger = createConsoleLogger('DEBUG');
    const processor = createBatchProcessor(async () => {}, {
      store: ledger.store,
      consumer: 'content',
      parser: (raw) => {
        if (raw.includes('parser')) throw new SyntaxError(`unexpected ${raw}`);
        return JSON.parse(raw);
      },
      key: ({ body }) => {
        throw new TypeError(`no id in ${JSON.stringify(body)}`);
      },
      observability: { logger: logger },
    });
    let outcomes: Awaited<ReturnType<typeof processor.processRecords>> = [];

    const output = await captureOutput(async () => {
      outcomes = await processor.processRecords(
        sqsEvent(sqsRecord(`parser ${SECRET}`), sqsRecord({ note: SECRET })),
      );
    });

    expect(outcomes.map((outcome) => outcome.error?.constructor.name)).toEqual([
      'MessageParseError',
      'KeyDerivationError',
    ]);
    expect(output).toContain('KeyDerivationError');
    expect(output).not.toContain('hunter2');
    expect(String(outcomes[0]?.error)).toMatch(/parser option \(SyntaxError\)/);
  });
});

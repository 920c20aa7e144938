import { describe, expect, it, vi } from 'vitest';
import {
  createBatchProcessor,
  createConsoleLogger,
  type InboxLogger,
  type InboxMetrics,
  PermanentError,
  RecordStatus,
} from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();

function circular(): unknown {
  const response: Record<string, unknown> = { statusCode: 502 };
  response.request = { response };
  return response;
}

const throwingLogger: InboxLogger = {
  debug: () => {
    throw new Error('logger down');
  },
  info: () => {
    throw new Error('logger down');
  },
  warn: () => {
    throw new Error('logger down');
  },
  error: () => {
    throw new Error('logger down');
  },
};
const throwingMetrics: InboxMetrics = {
  addMetric: () => {
    throw new Error('metrics down');
  },
};

describe('one record’s throw, value or logger failure never fails the invocation', () => {
  it.each([
    { what: 'a thrown circular non-Error (an HTTP response)', thrown: circular },
    { what: 'a thrown object holding a BigInt', thrown: () => ({ amount: 10n }) },
    { what: 'a thrown object without a prototype', thrown: () => Object.create(null) },
    {
      what: 'a PermanentError whose cause is circular',
      thrown: () => new PermanentError('bad', { cause: circular() }),
    },
  ])('$what: the other records commit and only that record fails', async ({ thrown }) => {
    const accountId = `acc-mistake-${Math.random()}`;
    const good = [payment({ accountId }), payment({ accountId })] as const;
    const bad = payment({ accountId, amountCents: 1 });
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    const processor = createBatchProcessor(
      async (message, tx) => {
        if (message.body.eventId === bad.eventId) throw thrown();
        await ledger.applyPayment(message, tx);
      },
      {
        store: ledger.store,
        consumer: 'mistakes',
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        observability: { logger: createConsoleLogger('WARN') },
      },
    );
    const badRecord = sqsRecord(bad);

    const response = await processor.process(
      sqsEvent(sqsRecord(good[0]), badRecord, sqsRecord(good[1])),
    );
    stderr.mockRestore();

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: badRecord.messageId }]);
    expect(await ledger.balanceOf(accountId)).toBe(2 * good[0].amountCents);
  });

  it('a logger and a metrics sink that throw on every call change no outcome', async () => {
    const accountId = `acc-sinks-${Math.random()}`;
    const events = [payment({ accountId }), payment({ accountId })] as const;
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const processor = createBatchProcessor(ledger.applyPayment, {
      store: ledger.store,
      consumer: 'mistakes',
      schema: PaymentCaptured,
      key: ({ body }) => body.eventId,
      observability: { logger: throwingLogger, metrics: throwingMetrics },
    });

    const response = await processor.process(sqsEvent(...events.map((event) => sqsRecord(event))));
    const reported = stderr.mock.calls.map(([line]) => String(line));
    stderr.mockRestore();

    expect(response.batchItemFailures).toEqual([]);
    expect(await ledger.balanceOf(accountId)).toBe(2 * events[0].amountCents);
    expect(reported.some((line) => line.includes('sqs-inbox: the logger threw'))).toBe(true);
  });
});

describe('an async parser', () => {
  it('is awaited, so the schema sees the parsed value; a rejecting one is that record’s parse failure', async () => {
    const accountId = `acc-async-parser-${Math.random()}`;
    const event = payment({ accountId });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    const processor = createBatchProcessor(ledger.applyPayment, {
      store: ledger.store,
      consumer: 'async-parser',
      schema: PaymentCaptured,
      key: ({ body }) => body.eventId,
      parser: async (raw) => {
        if (raw === 'reject') throw new SyntaxError('bad input');
        return JSON.parse(raw);
      },
      observability: { logger: createConsoleLogger('ERROR') },
    });
    const rejected = sqsRecord('reject');
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});

    const outcomes = await processor.processRecords(sqsEvent(sqsRecord(event), rejected));
    await new Promise((resolve) => setImmediate(resolve));
    stderr.mockRestore();
    process.off('unhandledRejection', unhandled);

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Failed,
    ]);
    expect(outcomes[1]?.error).toMatchObject({ name: 'MessageParseError' });
    expect(await ledger.balanceOf(accountId)).toBe(event.amountCents);
    expect(unhandled).not.toHaveBeenCalled();
  });
});

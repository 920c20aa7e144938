import type { SQSEvent } from 'aws-lambda';
import * as library from 'sqs-inbox';
import { copyOf, fifoRecord, InboxTest, lambdaContext, sqsEvent } from 'sqs-inbox/testing';
import { describe, expect, it, vi } from 'vitest';

// One container for the file: the module builds its Logger, Metrics and config once, at import.
vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'sqs-inbox-example');
vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'ledger');
const inbox = new InboxTest({
  consumer: 'ledger',
  tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
});
vi.doMock('sqs-inbox', () => ({
  ...library,
  inboxConfigFromEnvironment: () => inbox.inboxConfig(),
}));
const { handler } = await import('../../../examples/middy/ledger.js');
vi.doUnmock('sqs-inbox');
vi.unstubAllEnvs();

const balance = (accountId: string) => inbox.dynamo.item('accounts', { accountId })?.balanceCents;
const payment = (eventId: string, accountId: string, amountCents: number) =>
  fifoRecord({ eventId, accountId, amountCents }, { groupId: accountId });

/** Invokes the exported handler as Lambda would; returns its response and the JSON lines it printed. */
async function invoke(event: SQSEvent, awsRequestId = 'req-1') {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const response = await handler(event, { ...lambdaContext(), awsRequestId });
    const lines = write.mock.calls
      .map(([chunk]) => String(chunk).trim())
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { response, lines };
  } finally {
    write.mockRestore();
  }
}

describe('the ledger under middy with Powertools (examples/middy/ledger.ts)', () => {
  it('credits each payment once through the middy chain, a copy answering as a duplicate', async () => {
    const first = payment('e-1', 'acc-1', 500);
    await invoke(sqsEvent(first, payment('e-2', 'acc-1', 300)));
    const { response } = await invoke(sqsEvent(copyOf(first)));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(balance('acc-1')).toBe(800);
  });

  it("writes the library's metrics through Powertools Metrics, flushed once by logMetrics", async () => {
    const { lines } = await invoke(sqsEvent(payment('e-3', 'acc-2', 100)));
    const metricLines = lines.filter((line) => '_aws' in line);
    expect(metricLines).toHaveLength(1);
    expect(metricLines[0]).toMatchObject({ service: 'ledger', InboxProcessed: 1 });
  });

  it('logs through Powertools Logger, its lines carrying the request id injectLambdaContext adds', async () => {
    const { lines } = await invoke(sqsEvent(payment('e-4', 'acc-3', 100)), 'req-outcome');
    const outcome = lines.find((line) => line.message === 'message outcome');
    expect(outcome).toMatchObject({ outcome: 'processed', function_request_id: 'req-outcome' });
  });
});

import { describe, expect, it } from 'vitest';
import { InboxError, RecordStatus } from '../../../../src/index.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../../src/testing/index.js';
import { recordingConsumer } from '../../../support/recordingConsumer.js';

describe('lambdaContext', () => {
  it('counts the remaining time down by the clock given, never below zero', () => {
    let nowMillis = 1_000_000;
    const context = lambdaContext({ remainingMillis: 10_000, now: () => nowMillis });
    expect(context.getRemainingTimeInMillis()).toBe(10_000);
    nowMillis += 4_000;
    expect(context.getRemainingTimeInMillis()).toBe(6_000);
    nowMillis += 60_000;
    expect(context.getRemainingTimeInMillis()).toBe(0);
  });

  it('names the function, its ARN, version, memory and logs as Lambda does', () => {
    const context = lambdaContext({ functionName: 'ledger', awsRequestId: 'req-1', now: () => 0 });
    expect(context).toMatchObject({
      functionName: 'ledger',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:ledger',
      memoryLimitInMB: '128',
      awsRequestId: 'req-1',
      logGroupName: '/aws/lambda/ledger',
      callbackWaitsForEmptyEventLoop: true,
    });
    expect(context.logStreamName).toMatch(/^1970\/01\/01\/\[\$LATEST\][0-9a-f]{32}$/);
    expect(lambdaContext().awsRequestId).not.toBe(lambdaContext().awsRequestId);
    expect(() => context.succeed('done')).toThrow(InboxError);
  });

  it('sets the processor’s deadline: a record still running when the time is up is failed', async () => {
    const { processor } = recordingConsumer(
      { key: () => 'k' },
      () => new Promise((resolve) => setTimeout(resolve, 2_000)),
    );
    const context = lambdaContext({ remainingMillis: 200 });
    const started = Date.now();
    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord('{}')), context);
    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toMatchObject({ name: 'RecordDeadlineError' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

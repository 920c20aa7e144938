import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_RUN_PATH } from '../../../src/cli/resolveTarget.js';
import { runCli } from '../../../src/cli/runCli.js';
import { OUTBOX_DEAD_LETTER_KIND } from '../../../src/relay/index.js';
import { testAws } from '../../harness/aws.js';
import { outputLines } from '../../support/messageLines.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { receiveMessages, takeMessages } from '../../support/receiveMessages.js';

const aws = testAws();
afterAll(() => aws.cleanup());
const MARKER = `marker-${randomUUID()}`;

describe('sqs-inbox outbox', () => {
  it('reports what a redrive of the relay DLQ would do, sends nothing without --apply, and with it sends the refused message again with its outbox id', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('relay-dlq'));
    const destination = await aws.createQueue(aws.uniqueName('notifier'));
    const id = randomUUID().replace(/-/g, '');
    const letter = {
      kind: OUTBOX_DEAD_LETTER_KIND,
      reason: { error: 'DestinationRefusedError', code: 'AccessDenied', message: 'denied' },
      message: {
        id,
        kind: 'sqs',
        destination: destination.url,
        body: JSON.stringify({ note: MARKER }),
      },
      record: { sequenceNumber: '1' },
      failedAt: new Date().toISOString(),
    };
    await aws.sqs.send(
      new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: JSON.stringify(letter) }),
    );
    const env = standardAwsEnvironment(aws);

    const report = await sqsInbox(['outbox', 'report', '--queue-url', dlq.url, '--json'], env);
    expect(report.code, report.stderr).toBe(1);
    expect(JSON.parse(report.stdout)).toMatchObject({
      apply: false,
      letters: 1,
      groups: [{ kind: 'message', status: 'wouldRedrive', count: 1 }],
    });
    const dry = await sqsInbox(['outbox', 'redrive', '--queue-url', dlq.url, '--json'], env);
    expect(JSON.parse(dry.stdout)).toMatchObject({ apply: false, letters: 1 });
    expect(await receiveMessages(aws.sqs, destination.url)).toEqual([]);

    const applied = await sqsInbox(
      ['outbox', 'redrive', '--queue-url', dlq.url, '--apply', '--jsonl'],
      env,
    );
    expect(applied.code, applied.stderr).toBe(0);
    const [line] = outputLines(applied.stdout);
    expect(line).toMatchObject({ status: 'redriven', kind: 'message', outboxIds: [id] });
    const [sent] = await takeMessages(aws.sqs, destination.url, 1);
    expect(sent?.Body).toContain(MARKER);
    for (const result of [report, dry, applied])
      expect(result.stdout + result.stderr).not.toContain(MARKER);
  }, 60_000);

  it("as npm run outbox runs it (--local before the action, no consumer named): reads the local run's relay DLQ", async () => {
    const dlq = await aws.createQueue(aws.uniqueName('relay-dlq'));
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: dlq.url,
        MessageBody: JSON.stringify({ not: 'a letter' }),
      }),
    );
    // The run file `npm start -- --keep-running` writes, in a directory of its own.
    const cwd = mkdtempSync(join(tmpdir(), 'outbox-local-'));
    mkdirSync(join(cwd, '.cache'));
    const run = {
      endpoint: aws.endpoints.sqs,
      outbox: { deadLetterQueueUrl: dlq.url },
      consumers: {},
    };
    writeFileSync(join(cwd, LOCAL_RUN_PATH), JSON.stringify(run));
    const printed: string[] = [];
    const io = { stdout: (text: string) => printed.push(text), stderr: () => {}, env: {}, cwd };

    const code = await runCli(['outbox', '--local', 'report', '--json'], io);

    expect(JSON.parse(printed.join(''))).toMatchObject({
      queueUrl: dlq.url,
      apply: false,
      letters: 1,
    });
    expect(code).toBe(1);
  }, 60_000);
});

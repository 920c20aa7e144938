import { spawn } from 'node:child_process';
import {
  CloudFormationClient,
  CreateStackCommand,
  DeleteStackCommand,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startEmulator } from '../../tools/emulator/emulator.js';
import type { RunningEmulator } from '../../tools/emulator/paths.js';
import { projectRoot } from '../../tools/emulator/paths.js';
import { CdkRunner } from '../../tools/verify/CdkRunner.js';
import { DEPLOY_SERVICES, STACK_NAME } from '../../tools/verify/deployStack.js';
import { destroyStack, stackStatus } from '../../tools/verify/destroyStack.js';
import { listStackResources } from '../../tools/verify/listStackResources.js';
import { clientConfigOf } from '../../tools/verify/VerifyTarget.js';

/**
 * `npm run verify:aws -- --emulator` on an emulator of this file's (given as AWS_ENDPOINT_URL,
 * so it outlives the command and can be inspected after it), with the output collected.
 */
function verifyAws(endpoint: string, args: readonly string[]) {
  const child = spawn('npm', ['run', 'verify:aws', '--', '--emulator', ...args], {
    cwd: projectRoot,
    env: { ...process.env, AWS_ENDPOINT_URL: endpoint },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the test signals it as a terminal's Ctrl-C does, the whole group.
    detached: true,
  });
  onTestFinished(() => {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  });
  let output = '';
  const seen = new Map<() => boolean, () => void>();
  const collect = (chunk: Buffer) => {
    output += chunk;
    for (const [shown, resolve] of seen) if (shown()) resolve();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const ended = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
  /** Resolves once the output shows `text`; rejects, with the output, if the run ends first or 10 minutes pass. */
  const printed = (text: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const shown = () => (typeof text === 'string' ? output.includes(text) : text.test(output));
      if (shown()) return resolve();
      seen.set(() => shown(), resolve);
      const fail = (why: string) =>
        reject(new Error(`verify:aws ${why} before printing ${text}:\n${output}`));
      child.once('exit', () => (shown() ? resolve() : fail('ended')));
      setTimeout(() => fail('ran 10 minutes'), 600_000).unref();
    });
  return { child, ended, printed };
}

let emulator: RunningEmulator;
let clients: { cloudFormation: CloudFormationClient; sqs: SQSClient; dynamodb: DynamoDBClient };

beforeAll(async () => {
  emulator = await startEmulator(DEPLOY_SERVICES);
  const config = clientConfigOf({ kind: 'emulator', endpoint: emulator.endpoint });
  clients = {
    cloudFormation: new CloudFormationClient(config),
    sqs: new SQSClient(config),
    dynamodb: new DynamoDBClient(config),
  };
});
afterAll(async () => {
  for (const client of Object.values(clients ?? {})) client.destroy();
  await emulator?.stop();
});

/** What the stack and the run left on the emulator: the stack's status, the queues, the tables. */
async function leftBehind() {
  const { QueueUrls = [] } = await clients.sqs.send(new ListQueuesCommand({}));
  const { TableNames = [] } = await clients.dynamodb.send(new ListTablesCommand({}));
  return {
    stack: await stackStatus(clients.cloudFormation, STACK_NAME),
    queues: QueueUrls,
    tables: TableNames,
  };
}

describe('npm run verify:aws -- --emulator', () => {
  it('deploys the reference stack with cdklocal, drives traffic with duplicates, poison messages and a redrive through sqs-inbox, reports every invariant passing, and destroys the stack', async () => {
    const started = Date.now();
    const { code, output } = await verifyAws(emulator.endpoint, [
      '--messages',
      '60',
      '--seed',
      '11',
    ]).ended;

    console.log(`verify:aws -- --emulator took ${Math.round((Date.now() - started) / 1000)} s`);
    expect(output).toMatch(/\[verify\] deployed SqsInboxReference in \d+ s/);
    expect(output).toMatch(
      /\[verify\] sent 60 messages \(.*\d+ delivered twice by their upstream, \d+ malformed, 1 conflicting; seed 11\)/,
    );
    expect(output).toMatch(
      /repairs \(what the target's CloudFormation dropped, applied after the deploy\): [1-9]/,
    );
    expect(output).toContain('PASS  all messages settled');
    expect(output).toContain('PASS  every event its upstream delivered twice');
    expect(output).toContain('PASS  every conflicting payment retried, then dead-lettered');
    expect(output).toContain('PASS  nothing lost between the hops');
    expect(output).toMatch(
      /PASS {2}dlq redrive \(sqs-inbox, the operations CLI\).*exit 0, the copy already-applied and deleted, 0 sent/,
    );
    expect(output).not.toMatch(/^ {2}(FAIL|SKIP) /m);
    expect(output).toContain('all invariants hold');
    expect(output).toContain('[destroy] SqsInboxReference destroyed');
    expect(code).toBe(0);
    expect(await leftBehind()).toEqual({ stack: undefined, queues: [], tables: [] });
  }, 1_500_000);

  it('refuses to run over a SqsInboxReference stack it did not create: exits 1 naming it, and the stack and its queue are left as they were', async () => {
    const queueName = 'pre-existing-reference-queue';
    await clients.cloudFormation.send(
      new CreateStackCommand({
        StackName: STACK_NAME,
        TemplateBody: JSON.stringify({
          Resources: { Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: queueName } } },
        }),
      }),
    );
    onTestFinished(async () => {
      await clients.cloudFormation.send(new DeleteStackCommand({ StackName: STACK_NAME }));
      await vi.waitFor(async () => expect(await leftBehind()).toMatchObject({ queues: [] }), {
        timeout: 60_000,
        interval: 1_000,
      });
    });
    await vi.waitFor(
      async () =>
        expect(await stackStatus(clients.cloudFormation, STACK_NAME)).toBe('CREATE_COMPLETE'),
      { timeout: 60_000, interval: 1_000 },
    );

    const { code, output } = await verifyAws(emulator.endpoint, ['--messages', '20']).ended;

    expect(output).toMatch(/SqsInboxReference already exists on .* \(CREATE_COMPLETE\)/);
    expect(output).not.toContain('[deploy]');
    expect(output).not.toContain('[destroy]');
    expect(code).toBe(1);
    const left = await leftBehind();
    expect(left.stack).toBe('CREATE_COMPLETE');
    expect(left.queues).toEqual([expect.stringContaining(queueName)]);
  }, 300_000);

  it("lists every resource of a stack past 100, the most DescribeStackResources answers (the destroy's buckets and the settings check read this list)", async () => {
    const stackName = 'verify-many-resources';
    const handles = Object.fromEntries(
      Array.from({ length: 120 }, (_, index) => [
        `Handle${index}`,
        { Type: 'AWS::CloudFormation::WaitConditionHandle' },
      ]),
    );
    await clients.cloudFormation.send(
      new CreateStackCommand({
        StackName: stackName,
        TemplateBody: JSON.stringify({ Resources: handles }),
      }),
    );
    onTestFinished(async () => {
      await clients.cloudFormation.send(new DeleteStackCommand({ StackName: stackName }));
    });
    await vi.waitFor(
      async () =>
        expect(await stackStatus(clients.cloudFormation, stackName)).toBe('CREATE_COMPLETE'),
      { timeout: 60_000, interval: 1_000 },
    );

    const resources = await listStackResources(clients.cloudFormation, stackName);

    expect(new Set(resources.map((r) => r.LogicalResourceId)).size).toBe(120);
  }, 120_000);

  it("destroys a stack that a stopped deploy's last request creates after the stop (the race staged: a CDK runner whose stop lets a CreateStack land 8 s later)", async () => {
    const stackName = 'verify-late-stack';
    const { cloudFormation } = clients;
    const template = {
      Resources: { Handle: { Type: 'AWS::CloudFormation::WaitConditionHandle' } },
    };
    class LateStackCdk extends CdkRunner {
      override async stop(): Promise<boolean> {
        setTimeout(() => {
          void cloudFormation.send(
            new CreateStackCommand({
              StackName: stackName,
              TemplateBody: JSON.stringify(template),
            }),
          );
        }, 8_000);
        return true;
      }
      // `cdk destroy`, as the CloudFormation calls it makes.
      override async run(): Promise<void> {
        await cloudFormation.send(new DeleteStackCommand({ StackName: stackName }));
        await vi.waitFor(
          async () => expect(await stackStatus(cloudFormation, stackName)).toBeUndefined(),
          { timeout: 60_000, interval: 1_000 },
        );
      }
    }
    const config = clientConfigOf({ kind: 'emulator', endpoint: emulator.endpoint });
    const lines: string[] = [];

    await destroyStack({
      cdk: new LateStackCdk({ kind: 'emulator', endpoint: emulator.endpoint }, projectRoot),
      stackName,
      cdkArguments: [],
      clients: { cloudFormation, s3: new S3Client(config), logs: new CloudWatchLogsClient(config) },
      log: (line) => lines.push(line),
    });

    expect(lines).toContain(`[destroy] ${stackName} destroyed`);
    expect(await stackStatus(cloudFormation, stackName)).toBeUndefined();
  }, 120_000);

  it('destroys the stack when stopped by Ctrl-C once deployed: the stack, its queues (and the taps the traffic made) and its tables are gone', async () => {
    const run = verifyAws(emulator.endpoint, ['--messages', '60', '--seed', '12']);
    await run.printed('[verify] deployed SqsInboxReference');
    const interrupted = Date.now();
    process.kill(-(run.child.pid ?? 0), 'SIGINT');
    const { code, output } = await run.ended;

    console.log(
      `verify:aws stopped by SIGINT: destroyed and exited in ${Math.round((Date.now() - interrupted) / 1000)} s`,
    );
    expect(output).toContain('[destroy] SqsInboxReference destroyed');
    expect(code).toBe(130);
    expect(await leftBehind()).toEqual({ stack: undefined, queues: [], tables: [] });
  }, 1_500_000);

  it('stops cleanly when Ctrl-C comes as cdk deploy asks CloudFormation for a change set: the deploy is stopped, a stack its last request made is destroyed, nothing is left, one line says so', async () => {
    const run = verifyAws(emulator.endpoint, ['--messages', '60', '--seed', '13']);
    await run.printed('SqsInboxReference: creating CloudFormation changeset');
    process.kill(-(run.child.pid ?? 0), 'SIGINT');
    const { code, output } = await run.ended;

    expect(output).toMatch(/^npm run verify:aws: cdklocal deploy stopped$/m);
    expect(output).not.toMatch(/^\s+at /m);
    expect(code).toBe(130);
    expect(await leftBehind()).toEqual({ stack: undefined, queues: [], tables: [] });
  }, 1_500_000);

  it('destroys the stack when Ctrl-C comes while cdk deploy watches CloudFormation create it: the deploy is stopped, the stack deleted, nothing left', async () => {
    const run = verifyAws(emulator.endpoint, ['--messages', '60', '--seed', '14']);
    // The CDK CLI prints each stack event; the first is the stack's own CREATE_IN_PROGRESS.
    await run.printed(/CREATE_IN_PROGRESS\s+\|\s+AWS::CloudFormation::Stack/);
    process.kill(-(run.child.pid ?? 0), 'SIGINT');
    const { code, output } = await run.ended;

    expect(output).toContain('[destroy] SqsInboxReference destroyed');
    expect(output).not.toMatch(/^\s+at /m);
    expect(code).toBe(130);
    expect(await leftBehind()).toEqual({ stack: undefined, queues: [], tables: [] });
  }, 1_500_000);
});

import { randomUUID } from 'node:crypto';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DeadLetterAttribute, InboxEnvironment, keyHash } from '../../src/constants/index.js';
import { projectRoot } from '../../tools/emulator/paths.js';
import { localClients } from '../../tools/local/localClients.js';
import { queueDepth } from '../../tools/local/queueDepth.js';
import { UpstreamDelivery } from '../../tools/local/UpstreamDelivery.js';
import { deployToEmulator } from '../../tools/verify/deployStack.js';
import {
  CONSUMER_PACKAGES,
  consumerVersion,
  createConsumerProject,
  installApart,
  peerVersionsFromEnvironment,
} from '../support/consumerProject.js';
import { eventually } from '../support/eventually.js';
import { functionLogLines } from '../support/functionLogLines.js';
import { filesOf, relayAssetDirectory } from '../support/relayAsset.js';
import { run, runOrThrow } from '../support/run.js';

const example = (name: string, dir = 'quickStart') =>
  readFileSync(join(projectRoot, 'examples', dir, name), 'utf8');

/** Test-only lines appended to the sources app (examples/sources, docs' Sources page): cdk-nag, and the stock table's name. */
const SHOP_CHECKS = `
import { Validations } from 'aws-cdk-lib';
new CfnOutput(stack, 'StockTableName', { value: stock.tableName });
import { AwsSolutionsChecks } from 'cdk-nag';
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
`;
const SHOP_APP = 'npx tsx shop.ts';

/** Test-only lines appended to the outbox app (examples/outbox, docs' Outbox page): cdk-nag, and the relay's function. */
const OUTBOX_CHECKS = `
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
new CfnOutput(stack, 'RelayFunctionName', { value: ledger.outbox?.function.functionName ?? '' });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
`;
const OUTBOX_APP = 'npx tsx outbox.ts';
const OUTBOX_OUT = 'cdk.out.outbox';

/**
 * The relay's own package entry, loaded as a user's function of their own would; the project
 * has no `@aws-sdk/client-dynamodb-streams` (an optional peer): reading a stream batch back, for
 * the redrive, names it.
 */
const STREAM_BATCH = `{ streamArn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/outbox/stream/x', shardId: 'shardId-1', startSequenceNumber: '1', endSequenceNumber: '2' }`;
const LOAD_RELAY_ESM = `import { createOutboxRelay, readStreamBatch } from 'sqs-inbox/relay';
console.log(await readStreamBatch(${STREAM_BATCH}).catch((error) => \`\${error.name}: \${error.message}\`));
const relay = createOutboxRelay({ deadLetter: { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq' } });
console.log(JSON.stringify(await relay.process({ Records: [] })));
`;
const LOAD_RELAY_CJS = `import { createOutboxRelay, readStreamBatch } from 'sqs-inbox/relay';
const relay = createOutboxRelay({ deadLetter: { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq' } });
readStreamBatch(${STREAM_BATCH})
  .catch((error) => console.log(\`\${error.name}: \${error.message}\`))
  .then(() => relay.process({ Records: [] }))
  .then((response) => console.log(JSON.stringify(response)));
`;

/**
 * An OutboxRelay built with `sqs-inbox/cdk` (ESM or CommonJS alike): prints the directory its
 * function's code is staged from.
 */
const FIND_RELAY_CODE = `import { App, AssetStaging, Stack } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { OutboxRelay } from 'sqs-inbox/cdk';
const stack = new Stack(new App({ outdir: 'cdk.out' }), 'Relay');
const credits = new Queue(stack, 'Credits');
const relay = new OutboxRelay(stack, 'Outbox', { name: 'ledger', destinations: { credits } });
const staging = relay.function.node.findAll().find((child) => child instanceof AssetStaging);
console.log(staging instanceof AssetStaging ? staging.sourcePath : 'no asset');
`;

/** Test-only lines appended to the quick start's app (examples/quickStart): cdk-nag, and outputs to find what it made. */
const APP_CHECKS = `
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
new CfnOutput(stack, 'FunctionName', { value: ledger.function.functionName });
new CfnOutput(stack, 'LogGroupName', { value: ledger.function.logGroup.logGroupName });
new CfnOutput(stack, 'DeadLetterQueueUrl', { value: ledger.deadLetterQueue.queueUrl });
new CfnOutput(stack, 'AccountsTableName', { value: accounts.tableName });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
`;

/** The peers' versions this run installs: this repository's, or the floor of each peer range. */
const peers = peerVersionsFromEnvironment();

/**
 * The library's own source, type-checked against the installed peers, so that at the floor every
 * API it uses is proven to exist. `@aws-sdk/client-dynamodb-streams` comes from a folder of its
 * own: the project must not have it (see the relay's load test).
 */
const SOURCE_TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
    paths: {
      '@aws-sdk/client-dynamodb-streams': [
        './peer-streams/node_modules/@aws-sdk/client-dynamodb-streams/dist-types/index.d.ts',
      ],
    },
  },
  include: ['node_modules/sqs-inbox/src'],
  exclude: [],
};

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: true,
    outDir: 'dist',
    rootDir: '.',
    types: ['node'],
  },
  include: ['src', 'check', 'app.ts', 'shop.ts', 'outbox.ts'],
};

const LOAD_ESM = `import { InboxConsumer } from 'sqs-inbox/cdk';
import { InboxAttribute } from 'sqs-inbox/constants';
import { InboxError, PermanentError } from 'sqs-inbox/errors';
import type { TransactPutInput } from 'sqs-inbox/types';
import { handler } from '../src/ledger.js';
const response = await handler({ Records: [] });
const put: TransactPutInput = { TableName: 't', Item: { id: '1' } };
const subpaths = [InboxAttribute.PartitionKey, new PermanentError('x') instanceof InboxError, put.TableName];
console.log(JSON.stringify({ response, construct: typeof InboxConsumer, subpaths }));
`;

const LOAD_CJS = `import { InboxConsumer } from 'sqs-inbox/cdk';
import { InboxAttribute } from 'sqs-inbox/constants';
import { InboxError, PermanentError } from 'sqs-inbox/errors';
import type { TransactPutInput } from 'sqs-inbox/types';
import { handler } from './ledger.cjs';
const put: TransactPutInput = { TableName: 't', Item: { id: '1' } };
const subpaths = [InboxAttribute.PartitionKey, new PermanentError('x') instanceof InboxError, put.TableName];
handler({ Records: [] }).then((response) =>
  console.log(JSON.stringify({ response, construct: typeof InboxConsumer, subpaths })),
);
`;

/**
 * A handler that reaches for the transaction builder's plumbing: none of it is in the package's
 * declarations (ESM or CommonJS), so each reach is a compile error the directive expects.
 */
const PLUMBING = `import { type MessageHandler, TransactionBuilder } from 'sqs-inbox';
export const handler: MessageHandler<unknown> = async (_message, tx) => {
  tx.put({ TableName: 't', Item: { id: '1' } });
  // @ts-expect-error what was added is the processor's to read
  console.log(tx.operations);
  // @ts-expect-error and so are the messages published
  console.log(tx.outgoing);
  // @ts-expect-error the processor closes the builder when the handler settles
  tx.close('m-1');
};
// @ts-expect-error the processor builds one per message
export const built = new TransactionBuilder();
`;

/** The environment the construct sets, as a deployed function would see it. */
const FUNCTION_ENV = {
  [InboxEnvironment.TableName]: 'inbox',
  [InboxEnvironment.Consumer]: 'ledger',
  [InboxEnvironment.TtlSeconds]: String(23 * 86_400),
  [InboxEnvironment.MaxReceiveCount]: '5',
  [InboxEnvironment.Sources]: 'sqs',
  [InboxEnvironment.DeadLetterQueueUrl]:
    'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq.fifo',
  [`${InboxEnvironment.BusinessTablePrefix}accounts`]: 'accounts',
  AWS_REGION: 'eu-west-1',
};

let tempDir = '';
let tarball = '';
let project = '';

beforeAll(async () => {
  tempDir = mkdtempSync(join(tmpdir(), 'sqs-inbox-consumer-files-'));
  tarball = inject('tarball');
  const handler = example('ledger.ts');
  project = await createConsumerProject(
    tarball,
    {
      'src/ledger.ts': handler,
      'check/ledger.cts': handler,
      'check/loadEsm.ts': LOAD_ESM,
      'check/loadCjs.cts': LOAD_CJS,
      'check/plumbing.ts': PLUMBING,
      'check/plumbing.cts': PLUMBING,
      'app.ts': `${example('app.ts')}${APP_CHECKS}`,
      'src/reservations.ts': example('reservations.ts', 'sources'),
      'shop.ts': `${example('app.ts', 'sources')}${SHOP_CHECKS}`,
      'src/ledgerOutbox.ts': example('ledgerOutbox.ts', 'outbox'),
      'src/notifier.ts': example('notifier.ts', 'outbox'),
      'outbox.ts': `${example('app.ts', 'outbox')}${OUTBOX_CHECKS}`,
      'check/loadRelayEsm.ts': LOAD_RELAY_ESM,
      'check/loadRelayCjs.cts': LOAD_RELAY_CJS,
      'check/findRelayCodeEsm.ts': FIND_RELAY_CODE,
      'check/findRelayCodeCjs.cts': FIND_RELAY_CODE,
      'cdk.json': `${JSON.stringify({ app: 'npx tsx app.ts' })}\n`,
      'tsconfig.json': `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    },
    peers,
  );
  const streams = '@aws-sdk/client-dynamodb-streams';
  await installApart(join(project, 'peer-streams'), [
    `${streams}@${consumerVersion(streams, peers)}`,
  ]);
  writeFileSync(
    join(project, 'tsconfig.source.json'),
    `${JSON.stringify(SOURCE_TSCONFIG, null, 2)}\n`,
  );
}, 900_000);

afterAll(() => {
  for (const dir of [project, tempDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`a fresh project that installs the packed tarball (peers: ${peers})`, () => {
  it("typechecks the quick start's handler as ESM and as CommonJS, and its app (examples/quickStart), and keeps the transaction builder's plumbing from a handler", async () => {
    await runOrThrow(join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {
      cwd: project,
    });
  });

  it(`installs each package at the version this run asks for (peers: ${peers})`, () => {
    for (const name of CONSUMER_PACKAGES) {
      const manifest = join(project, 'node_modules', name, 'package.json');
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
      expect({ name, version }).toEqual({ name, version: consumerVersion(name, peers) });
    }
  });

  it("typechecks the library's own source against the installed peers", async () => {
    await runOrThrow(join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.source.json'], {
      cwd: project,
    });
  });

  it('runs every command it spawns on the Node.js the test runs on (the runtime matrix sets it)', async () => {
    const output = await runOrThrow('node', ['-p', 'process.execPath + "\\n" + process.version'], {
      cwd: project,
    });

    expect(output.trim().split('\n')).toEqual([realpathSync(process.execPath), process.version]);
  });

  it.each([
    { format: 'ESM', file: 'dist/check/loadEsm.js' },
    { format: 'CommonJS', file: 'dist/check/loadCjs.cjs' },
  ])(
    `loads the handler, sqs-inbox/cdk, /constants, /errors and /types as $format with plain node (${process.version})`,
    async ({ file }) => {
      const output = await runOrThrow(process.execPath, [file], {
        cwd: project,
        env: FUNCTION_ENV,
      });

      expect(JSON.parse(output.trim().split('\n').at(-1) ?? '')).toEqual({
        response: { batchItemFailures: [] },
        construct: 'function',
        subpaths: ['pk', true, 't'],
      });
    },
  );

  it("bundles the handler with the esbuild command of the docs' installation page into one file that loads", async () => {
    const banner =
      "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
    await runOrThrow(
      join(project, 'node_modules', '.bin', 'esbuild'),
      [
        'src/ledger.ts',
        '--bundle',
        '--platform=node',
        '--format=esm',
        '--target=node24',
        '--minify',
        '--main-fields=module,main',
        '--outfile=bundle/index.mjs',
        `--banner:js=${banner}`,
      ],
      { cwd: project },
    );
    const load =
      "const { handler } = await import('./bundle/index.mjs'); console.log(JSON.stringify(await handler({ Records: [] })));";

    const output = await runOrThrow(process.execPath, ['--input-type=module', '-e', load], {
      cwd: project,
      env: FUNCTION_ENV,
    });

    expect(JSON.parse(output.trim().split('\n').at(-1) ?? '')).toEqual({ batchItemFailures: [] });
  });

  it('runs the sqs-inbox command the package ships: its version, its help, and a usage error as exit code 2', async () => {
    const bin = join(project, 'node_modules', '.bin', 'sqs-inbox');
    const version = await runOrThrow(bin, ['--version'], { cwd: project });
    expect(version.trim()).toBe(
      (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string })
        .version,
    );
    const help = await runOrThrow('npx', ['--no-install', 'sqs-inbox', '--help'], { cwd: project });
    expect(help).toMatch(/dlq redrive\s+put back what can safely go back/);
    const usage = await run(bin, ['message', '--kee', 'k'], { cwd: project });
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/^sqs-inbox: .*--kee/m);
  });

  it('runs the sqs-inbox command in a project without its optional peers, naming the one a command needs', async () => {
    const bare = join(tempDir, 'bare');
    const required = [
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/util-dynamodb',
      '@aws-sdk/client-sqs',
    ];
    await installApart(bare, [
      tarball,
      ...required.map((n) => `${n}@${consumerVersion(n, peers)}`),
    ]);
    const bin = join(bare, 'node_modules', '.bin', 'sqs-inbox');

    expect((await runOrThrow(bin, ['--version'], { cwd: bare })).trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(await runOrThrow(bin, ['message', '--help'], { cwd: bare })).toMatch(/--search-dlq/);
    const outbox = await run(
      bin,
      ['outbox', 'report', '--queue-url', 'http://127.0.0.1:9/000000000000/q'],
      {
        cwd: bare,
      },
    );
    expect(outbox.code).toBe(2);
    expect(outbox.output).toMatch(
      /^sqs-inbox: MissingPeerError: .* npm install @aws-sdk\/client-/m,
    );
    expect(outbox.output).not.toMatch(/\n\s+at /);
  }, 300_000);

  it('fails the cold start naming the missing variable, before any message', async () => {
    const result = await run(process.execPath, ['dist/check/loadEsm.js'], {
      cwd: project,
      env: { ...FUNCTION_ENV, [InboxEnvironment.Consumer]: '' },
    });

    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /EnvironmentError: Environment variable INBOX_CONSUMER is not set/,
    );
  });

  it("synthesizes the quick start's app (examples/quickStart), cdk-nag clean", async () => {
    const cdk = join(projectRoot, 'node_modules', '.bin', 'cdk');
    const output = await runOrThrow(cdk, ['synth', '--quiet', '--no-notices'], {
      cwd: project,
      env: { CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });

    expect(output).not.toMatch(/AwsSolutions-/);
  });

  it('synthesizes the outbox app (examples/outbox), cdk-nag clean, its relay the installed package’s pre-built function byte for byte (nothing bundled for it)', async () => {
    const cdk = join(projectRoot, 'node_modules', '.bin', 'cdk');
    const output = await runOrThrow(
      cdk,
      ['synth', '--app', OUTBOX_APP, '--output', OUTBOX_OUT, '--quiet', '--no-notices'],
      {
        cwd: project,
        env: { CDK_DISABLE_CLI_TELEMETRY: 'true' },
      },
    );
    const shipped = join(project, 'node_modules', 'sqs-inbox', 'dist', 'relay-function');

    expect(output).not.toMatch(/AwsSolutions-/);
    expect(readdirSync(shipped).sort()).toEqual([
      'THIRD_PARTY_LICENSES.txt',
      'index.mjs',
      'index.mjs.map',
    ]);
    const cloudAssembly = join(project, OUTBOX_OUT);
    const template = JSON.parse(
      readFileSync(join(cloudAssembly, 'Payments.template.json'), 'utf8'),
    );
    expect(filesOf(relayAssetDirectory(template, cloudAssembly))).toEqual(filesOf(shipped));
  });

  it.each([
    { format: 'ESM', file: 'dist/check/findRelayCodeEsm.js' },
    { format: 'CommonJS', file: 'dist/check/findRelayCodeCjs.cjs' },
  ])(
    "builds an OutboxRelay with sqs-inbox/cdk as $format from another directory, its code the installed package's dist/relay-function",
    async ({ file }) => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'sqs-inbox-elsewhere-'));
      try {
        const output = await runOrThrow(process.execPath, [join(project, file)], {
          cwd: elsewhere,
        });

        expect(output.trim().split('\n').at(-1)).toBe(
          realpathSync(join(project, 'node_modules', 'sqs-inbox', 'dist', 'relay-function')),
        );
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    },
  );

  it.each([
    { format: 'ESM', file: 'dist/check/loadRelayEsm.js' },
    { format: 'CommonJS', file: 'dist/check/loadRelayCjs.cjs' },
  ])(
    'loads sqs-inbox/relay as $format with plain node, and names the optional peer a stream redrive needs',
    async ({ file }) => {
      const output = await runOrThrow(process.execPath, [file], {
        cwd: project,
        env: { AWS_REGION: 'eu-west-1' },
      });

      expect(JSON.parse(output.trim().split('\n').at(-1) ?? '')).toEqual({ batchItemFailures: [] });
      expect(output).toMatch(
        /InvalidConfigurationError: .*"streamsClient".*@aws-sdk\/client-dynamodb-streams installed/,
      );
    },
  );

  it('synthesizes the sources app (examples/sources: a topic and a bus in front of a consumer), cdk-nag clean', async () => {
    const cdk = join(projectRoot, 'node_modules', '.bin', 'cdk');
    const output = await runOrThrow(cdk, ['synth', '--app', SHOP_APP, '--quiet', '--no-notices'], {
      cwd: project,
      env: { CDK_DISABLE_CLI_TELEMETRY: 'true' },
    });

    expect(output).not.toMatch(/AwsSolutions-/);
  });

  it('deployed to the emulator, applies an order published to the topic once and delivered twice once, and one put on the bus once and delivered twice once', async () => {
    const endpoint = inject('emulatorEndpoint');
    const { outputs } = await deployToEmulator(endpoint, {
      projectDir: project,
      stackName: 'Shop',
      app: SHOP_APP,
      log: (line) => console.error(line),
    });
    const output = (name: string) => outputs[name] ?? expect.fail(`no stack output ${name}`);
    const clients = localClients({ dynamodb: endpoint, sqs: endpoint });
    try {
      const queueUrl = output('ReservationsQueueUrl');
      const { Attributes } = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
      );
      const queue = { reservations: { queueUrl, queueArn: Attributes?.QueueArn ?? '' } };
      const viaTopic = await UpstreamDelivery.find(clients, queue, 'sns');
      const viaBus = await UpstreamDelivery.find(clients, queue, 'eventbridge');
      expect(viaTopic.upstreamOf('reservations')).toMatchObject({
        kind: 'sns',
        topicArn: output('OrdersTopicArn'),
      });
      expect(viaBus.upstreamOf('reservations')).toMatchObject({
        kind: 'eventbridge',
        busName: output('ShopBusName'),
      });
      const order = (sku: string) => ({
        consumer: 'reservations' as const,
        body: JSON.stringify({ orderId: `ord-${randomUUID()}`, sku, quantity: 3 }),
      });
      const [published, put] = [order(`sku-${randomUUID()}`), order(`sku-${randomUUID()}`)];

      // Sent twice: published (put) once, then the envelope its upstream delivered sent again.
      await viaTopic.send([published, published]);
      await viaBus.send([put, put]);

      const documents = DynamoDBDocumentClient.from(clients.dynamodb);
      for (const { body } of [published, put]) {
        const { sku } = JSON.parse(body) as { sku: string };
        const reserved = await eventually(
          `the reservation of ${sku}`,
          async () =>
            (
              await documents.send(
                new GetCommand({
                  TableName: output('StockTableName'),
                  Key: { sku },
                  ConsistentRead: true,
                }),
              )
            ).Item?.reserved,
          (value) => value !== undefined,
        );
        expect(reserved).toBe(3);
      }
      await eventually(
        'the queue to drain',
        () => queueDepth(clients.sqs, queueUrl),
        (depth) => depth === 0,
      );
      for (const { body } of [published, put]) {
        const { sku } = JSON.parse(body) as { sku: string };
        const { Item } = await documents.send(
          new GetCommand({
            TableName: output('StockTableName'),
            Key: { sku },
            ConsistentRead: true,
          }),
        );
        expect(Item?.reserved).toBe(3);
      }
    } finally {
      for (const client of Object.values(clients)) client.destroy();
    }
  }, 300_000);

  it('deployed to the emulator, applies a payment once, acknowledges its copy and dead-letters a malformed message', async () => {
    const endpoint = inject('emulatorEndpoint');
    const { outputs } = await deployToEmulator(endpoint, {
      projectDir: project,
      stackName: 'Payments',
      log: (line) => console.error(line),
    });
    const output = (name: string) => outputs[name] ?? expect.fail(`no stack output ${name}`);
    const config = {
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    };
    const sqs = new SQSClient(config);
    const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    const logs = new CloudWatchLogsClient(config);
    try {
      const eventId = `evt-${randomUUID()}`;
      const body = JSON.stringify({ eventId, accountId: 'acc-consumer', amountCents: 1250 });
      for (const copy of ['a', 'b', 'c']) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: output('QueueUrl'),
            MessageGroupId: copy === 'c' ? 'malformed' : 'acc-consumer',
            MessageDeduplicationId: `${eventId}-${copy}`,
            MessageBody: copy === 'c' ? 'not json' : body,
          }),
        );
      }

      const dead = await eventually(
        'the malformed message in the DLQ',
        async () => {
          const { Messages = [] } = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: output('DeadLetterQueueUrl'),
              MaxNumberOfMessages: 10,
              WaitTimeSeconds: 1,
              MessageAttributeNames: ['All'],
            }),
          );
          return Messages;
        },
        (messages: Message[]) => messages.length > 0,
      );
      const duplicates = await eventually(
        'one duplicate logged',
        () =>
          functionLogLines(
            logs,
            { functionName: output('FunctionName'), logGroupName: output('LogGroupName') },
            'duplicate message acknowledged',
            keyHash(eventId), // keys are logged as their hash
          ),
        (lines) => lines.length > 0,
      );
      const { Item } = await documentClient.send(
        new GetCommand({
          TableName: output('AccountsTableName'),
          Key: { accountId: 'acc-consumer' },
          ConsistentRead: true,
        }),
      );

      expect(Item?.balanceCents).toBe(1250);
      expect(duplicates).toHaveLength(1);
      expect(dead.map((m) => m.Body)).toEqual(['not json']);
      expect(dead[0]?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
        'MessageParseError',
      );
    } finally {
      for (const client of [sqs, documentClient, logs]) client.destroy();
    }
  }, 300_000);
});

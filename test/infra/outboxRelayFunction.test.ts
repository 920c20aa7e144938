import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { InboxValidationError, OutboxRelay, type OutboxRelayProps } from '../../src/cdk/index.js';
import { relayFunctionCode } from '../../src/cdk/relayFunctionCode.js';
import { RELAY_FUNCTION_DIRECTORY } from '../../tools/build/relayFunction.mjs';
import { projectRoot } from '../../tools/emulator/paths.js';
import { filesOf, relayAssetDirectory } from '../support/relayAsset.js';
import { fixtureEntry, freshStack } from './stackFactory.js';

/** The relay's function as `npm run build` left it (the infra tests' global setup builds it). */
const shipped = join(projectRoot, RELAY_FUNCTION_DIRECTORY);

/** A fresh stack holding an OutboxRelay toward one queue, with `props` over the defaults. */
function relayStack(props: Partial<OutboxRelayProps> = {}, options: { bundle?: boolean } = {}) {
  const stack = freshStack(options);
  const credits = new Queue(stack, 'Credits', { encryption: QueueEncryption.SQS_MANAGED });
  const relay = new OutboxRelay(stack, 'Outbox', {
    name: 'ledger',
    destinations: { credits },
    ...props,
  });
  return { stack, relay };
}

/** The relay function's code as the app staged it for upload: the asset directory's files. */
function stagedRelayCode(stack: Stack): Record<string, Buffer> {
  const template = Template.fromStack(stack).toJSON();
  return filesOf(relayAssetDirectory(template, (stack.node.root as App).outdir));
}

describe('OutboxRelay function', () => {
  it('deploys the relay the package ships, byte for byte, as index.handler on Node.js 24', () => {
    const { stack } = relayStack();

    expect(Object.keys(filesOf(shipped)).sort()).toEqual([
      'THIRD_PARTY_LICENSES.txt',
      'index.mjs',
      'index.mjs.map',
    ]);
    expect(stagedRelayCode(stack)).toEqual(filesOf(shipped));
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Description: 'sqs-inbox outbox relay of ledger',
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps' }),
      },
    });
  });

  it('bundles nothing for the relay at synth, with bundling on: the code is the shipped files', () => {
    const { stack, relay } = relayStack({}, { bundle: true });

    expect(relay.function).not.toBeInstanceOf(NodejsFunction);
    expect(stagedRelayCode(stack)).toEqual(filesOf(shipped));
  });

  it('ships the AWS SDK inside the relay, importing none of it from the runtime', () => {
    const code = readFileSync(join(shipped, 'index.mjs'), 'utf8');
    // The three clients' operations (compared as booleans: the bundle is too long to print).
    const operations = ['"SendMessage"', '"Publish"', '"PutEvents"'];

    expect(operations.filter((operation) => !code.includes(operation))).toEqual([]);
    const staticSdkImports =
      code.match(/(?:^|[;\n])\s*import[^;()]*?from\s*["']@aws-sdk\/[^"']*["']/g) ?? [];
    expect(staticSdkImports).toEqual([]);
  });

  it('finds the shipped relay from its own module, whatever directory cdk runs in', () => {
    const before = process.cwd();
    process.chdir(mkdtempSync(join(tmpdir(), 'sqs-inbox-elsewhere-')));
    try {
      const { stack } = relayStack();

      expect(stagedRelayCode(stack)).toEqual(filesOf(shipped));
    } finally {
      process.chdir(before);
    }
  });

  it('bundles a relayEntry of your own with esbuild at synth, with bundling merged over the defaults', () => {
    const { stack, relay } = relayStack(
      { relayEntry: fixtureEntry, bundling: { banner: '// mine' } },
      { bundle: true },
    );
    const staged = stagedRelayCode(stack);

    expect(relay.function).toBeInstanceOf(NodejsFunction);
    expect(Object.keys(staged)).not.toContain('THIRD_PARTY_LICENSES.txt');
    expect(/\/\/ mine[\s\S]*batchItemFailures/.test(String(staged['index.mjs']))).toBe(true);
  });

  it('refuses bundling without a relayEntry, since the library’s relay is not bundled at synth', () => {
    expect(() => relayStack({ bundling: { minify: false } })).toThrow(
      /^TestStack\/Outbox: bundling applies to a relayEntry of your own; the library’s relay ships pre-built/,
    );
  });

  it('refuses a runtime that is not Node.js, naming it', () => {
    expect(() => relayStack({ runtime: Runtime.PYTHON_3_13 })).toThrow(
      /^TestStack\/Outbox: runtime must be a Node\.js runtime, .*\(given python3\.13\)/,
    );
  });

  it('fails at synth, naming npm run build, in a checkout of sqs-inbox that was not built', () => {
    const checkout = mkdtempSync(join(tmpdir(), 'sqs-inbox-checkout-'));
    writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'sqs-inbox' }));
    const { stack } = relayStack({ relayEntry: fixtureEntry });

    const error = catchError(() => relayFunctionCode(stack, join(checkout, 'src', 'cdk')));
    expect(error).toBeInstanceOf(InboxValidationError);
    expect((error as Error).message).toBe(
      `TestStack: the relay's pre-built function is missing (${join(checkout, 'dist', 'relay-function')}). ` +
        'An installed sqs-inbox ships it; in a checkout of sqs-inbox, run npm run build. ' +
        'Or give the outbox a relayEntry of your own.',
    );
  });

  it('fails at synth, naming where it looked, when its module lies in no sqs-inbox package', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'sqs-inbox-bundled-app-'));
    const { stack } = relayStack({ relayEntry: fixtureEntry });

    expect(() => relayFunctionCode(stack, elsewhere)).toThrow(
      `TestStack: the relay's pre-built function is missing (no sqs-inbox package above ${elsewhere})`,
    );
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

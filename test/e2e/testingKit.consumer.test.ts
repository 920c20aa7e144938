import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../tools/emulator/paths.js';
import {
  consumerVersion,
  createConsumerProject,
  peerVersionsFromEnvironment,
} from '../support/consumerProject.js';
import { run } from '../support/run.js';

/** The testing examples (examples/testing, shown on the docs' Testing page), and the handler modules they test. */
const EXAMPLES = join(projectRoot, 'examples', 'testing');

/** What a user installs to test a handler with the kit: the peers it uses, and the runners. */
const KIT_PEERS = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/util-dynamodb',
  '@aws-sdk/client-sqs',
  'zod',
  'vitest',
  'typescript',
  '@types/node',
] as const;

/** Jest and its TypeScript transform, which this repository does not use itself. */
const JEST_PACKAGES = ['jest@30.5.2', '@jest/globals@30.5.2', 'ts-jest@29.4.15'] as const;

/** What must not be reachable from the tests' PATH: the emulators and what runs them. */
const ABSENT_COMMANDS = ['java', 'python', 'python3', 'docker', 'ministack', 'localstack'];

/**
 * Handlers broken on purpose, as a user's bug would: each must fail the example that guards it.
 */
const BROKEN_HANDLERS = [
  {
    breaks: 'keys each message by its SQS message id, so a copy is not recognised',
    find: 'key: ({ body }) => body.eventId',
    replace: 'key: ({ messageId }) => messageId',
    fails: 'books a transfer once when a copy of it arrives',
    // The same transfer twice in one batch: two commits, so two outbox items.
    others: ['publishes one TransferBooked through the outbox, in the commit'],
    jestFails: true,
  },
  {
    breaks: 'forgets the overdraft check',
    find: 'if (balanceCents + body.amountCents < 0)',
    replace: 'if (balanceCents + body.amountCents < -Infinity)',
    fails: 'dead-letters an overdraft with its reason, booking nothing',
    others: [],
    // The Jest file has no overdraft example.
    jestFails: false,
  },
];

/** The names of the tests Vitest's verbose reporter marks failed. */
function failedTests(output: string): string[] {
  const names = [
    ...output.matchAll(
      /^\s*(?:×|✗|FAIL)\s+.*?ledger\.test\.ts\s+>\s+ledger\s+>\s+(.+?)(?:\s+\d+ms)?$/gm,
    ),
  ];
  return [...new Set(names.map((match) => match[1]?.trim() ?? ''))].sort();
}

const peers = peerVersionsFromEnvironment();
let project = '';

/** The examples' files, as the docs' Testing page shows them. */
function exampleFiles(): Record<string, string> {
  return Object.fromEntries(
    readdirSync(EXAMPLES).map((name) => [name, readFileSync(join(EXAMPLES, name), 'utf8')]),
  );
}

/**
 * A PATH of one folder holding only `node` (the Node.js running this test): no emulator, no
 * Java, no Python, no Docker, and no AWS endpoint or credentials in the environment.
 */
function bareEnvironment(): NodeJS.ProcessEnv {
  const bin = join(project, '.bare-bin');
  mkdirSync(bin, { recursive: true });
  if (!existsSync(join(bin, 'node'))) symlinkSync(process.execPath, join(bin, 'node'));
  return {
    PATH: bin,
    HOME: project,
    NO_COLOR: '1',
    // .ci/run finds the commands a tier started by this mark, to stop them on a signal.
    ...(process.env.SQS_INBOX_CI_RUN ? { SQS_INBOX_CI_RUN: process.env.SQS_INBOX_CI_RUN } : {}),
  };
}

/** Runs a package's command with `node`, in the bare environment. */
function runBare(script: string, args: readonly string[]) {
  return run(join(project, '.bare-bin', 'node'), [join(project, script), ...args], {
    cwd: project,
    env: bareEnvironment(),
    inheritEnv: false,
    timeoutMillis: 170_000,
    killOnTestEnd: true,
  });
}

const vitest = (...args: string[]) =>
  runBare('node_modules/vitest/vitest.mjs', ['run', '--reporter=verbose', ...args]);
const jest = (...args: string[]) => runBare('node_modules/jest/bin/jest.js', [...args]);

beforeAll(async () => {
  project = await createConsumerProject(
    inject('tarball'),
    {
      ...exampleFiles(),
      'tsconfig.json': `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    },
    peers,
    KIT_PEERS,
    JEST_PACKAGES,
  );
  bareEnvironment();
}, 900_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ['node'],
  },
  include: ['*.ts'],
};

describe(`a fresh project that tests its handler with sqs-inbox/testing (peers: ${peers})`, () => {
  it('has no emulator, Java, Python or Docker on the PATH its tests run with', () => {
    const path = bareEnvironment().PATH?.split(delimiter) ?? [];
    for (const command of ABSENT_COMMANDS) {
      expect(path.filter((dir) => existsSync(join(dir, command)))).toEqual([]);
    }
  });

  it('typechecks the testing examples (examples/testing) against the packed types', async () => {
    const result = await runBare('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.json']);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs the Vitest examples of examples/testing green, with no emulator', async () => {
    const result = await vitest('ledger.test.ts');
    expect(result.output).toMatch(/Tests\s+5 passed \(5\)/);
    expect(result.code).toBe(0);
  });

  it('runs the Jest examples of examples/testing green (ts-jest, CommonJS: the CommonJS build)', async () => {
    const result = await jest('--config', 'jest.config.cjs');
    expect(result.output).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(result.code).toBe(0);
  });

  for (const { breaks, find, replace, fails, others, jestFails } of BROKEN_HANDLERS) {
    it(`fails the example "${fails}" when the handler ${breaks}`, async () => {
      const ledger = join(project, 'ledger.ts');
      const original = readFileSync(ledger, 'utf8');
      expect(original.split(find)).toHaveLength(2);
      writeFileSync(ledger, original.replace(find, replace));
      try {
        const result = await vitest('ledger.test.ts');
        expect(result.code).toBe(1);
        expect(failedTests(result.output)).toEqual([fails, ...others].sort());
        if (jestFails) {
          const jestResult = await jest('--config', 'jest.config.cjs');
          expect(jestResult.code).toBe(1);
          expect(jestResult.output).toMatch(new RegExp(`✕ ${fails}`));
        }
      } finally {
        writeFileSync(ledger, original);
      }
    });
  }

  it(`installs the SDK at the version this run asks for (peers: ${peers})`, () => {
    const manifest = join(project, 'node_modules', '@aws-sdk', 'client-dynamodb', 'package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    expect(version).toBe(consumerVersion('@aws-sdk/client-dynamodb', peers));
  });
});

/**
 * `npm run bench:init`: the reference ledger handler's bundle (as the construct builds it:
 * esbuild, ESM, minified, the SDK inside) and its init time, next to a baseline handler with the
 * same logger, metrics, middy and DynamoDB clients but no sqs-inbox, so that the difference is
 * the library's own share. Init time is how long `import()` of the bundle takes in a fresh
 * Node.js process (the module's own load and top-level code, what Lambda's Init Duration adds to
 * the runtime's start), measured in interleaved processes, medians printed. Prints figures;
 * asserts nothing.
 *
 *   npm run bench:init -- --runs 20
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { build, type Metafile } from 'esbuild';
import {
  businessTableVariable,
  destinationVariable,
  InboxEnvironment,
} from '../src/constants/index.js';
import { numberIn } from '../tools/cli/optionParsers.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { projectRoot } from '../tools/emulator/paths.js';
import { entryAliases } from '../tools/sdk/entryPoints.js';
import { median } from './printBenchReport.js';

const { runs } = new Command('npm run bench:init --')
  .description(
    "The reference ledger handler's bundle size and init time, and the library's share of each.",
  )
  .option('--runs <n>', 'processes per bundle, interleaved', numberIn('--runs', 3, 200), 20)
  .parse()
  .opts<{ runs: number }>();

/** What the construct gives the ledger function, with made-up names (no request is sent). */
const LEDGER_ENVIRONMENT = {
  [InboxEnvironment.TableName]: 'inbox',
  [InboxEnvironment.Consumer]: 'ledger',
  [InboxEnvironment.TtlSeconds]: String(23 * 86_400),
  [InboxEnvironment.OutboxRetentionSeconds]: String(7 * 86_400),
  [InboxEnvironment.DeadLetterQueueUrl]:
    'https://sqs.us-east-1.amazonaws.com/000000000000/ledger-dlq.fifo',
  [InboxEnvironment.MaxReceiveCount]: '5',
  [InboxEnvironment.Sources]: 'sns',
  [InboxEnvironment.OutboxTableName]: 'outbox',
  [businessTableVariable('accounts')]: 'accounts',
  [businessTableVariable('ledgerEntries')]: 'ledger-entries',
  [destinationVariable('credited')]: 'https://sqs.us-east-1.amazonaws.com/000000000000/notifier',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  POWERTOOLS_SERVICE_NAME: 'ledger',
  POWERTOOLS_METRICS_NAMESPACE: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

interface Bundle {
  readonly name: string;
  readonly path: string;
  readonly bytes: number;
  /** Output bytes by where they come from. */
  readonly shares: Record<string, number>;
}

async function bundle(name: string, entry: string): Promise<Bundle> {
  const path = join(mkdtempSync(join(tmpdir(), `sqs-inbox-init-${name}-`)), 'index.mjs');
  const { metafile } = await build({
    entryPoints: [join(projectRoot, entry)],
    outfile: path,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    metafile: true,
    alias: entryAliases(projectRoot),
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return { name, path, bytes: statSync(path).size, shares: sharesOf(metafile) };
}

/** The bundle's bytes by origin: the library, the handler, zod, the SDK, Powertools, the rest. */
function sharesOf(metafile: Metafile): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const origin = originOf(relative(projectRoot, join(projectRoot, input)));
      shares[origin] = (shares[origin] ?? 0) + bytesInOutput;
    }
  }
  return shares;
}

function originOf(path: string): string {
  if (path.startsWith('src/')) return 'sqs-inbox';
  if (path.startsWith('functions/') || path.startsWith('bench/')) return 'handler';
  if (/node_modules\/(@aws-sdk|@smithy|@aws-crypto|@aws\/)/.test(path)) return 'AWS SDK';
  if (path.includes('node_modules/@aws-lambda-powertools')) return 'Powertools';
  if (path.includes('node_modules/zod/')) return "zod (the handler's schema)";
  return 'other';
}

/** Milliseconds `import()` of the bundle takes in a fresh process. */
function importMillis(path: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(path)}); process.stdout.write(String(performance.now() - t));`;
  try {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...LEDGER_ENVIRONMENT },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return Number(output);
  } catch (error) {
    // A minified bundle's stack quotes a whole line of code: only the error's own line is told.
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    const reason = stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ?? 'see its output';
    throw new Error(`importing ${path} failed: ${reason.slice(0, 500)}`);
  }
}

async function main(): Promise<number> {
  const ledger = await bundle('ledger', 'functions/ledger/handler.ts');
  const baseline = await bundle('baseline', 'bench/initBaseline.ts');
  const times: Record<string, number[]> = { ledger: [], baseline: [] };
  importMillis(ledger.path); // the file system's cache, measured by no one
  importMillis(baseline.path);
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? [ledger, baseline] : [baseline, ledger];
    for (const measured of order) times[measured.name]?.push(importMillis(measured.path));
  }
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `init: import() of each bundle in ${runs} fresh Node ${process.version} processes each, interleaved`,
  );
  console.table(
    [ledger, baseline].map((measured) => ({
      bundle:
        measured.name === 'ledger' ? 'reference ledger handler' : 'same handler without sqs-inbox',
      size: kib(measured.bytes),
      ...Object.fromEntries(
        Object.entries(measured.shares).map(([origin, bytes]) => [origin, kib(bytes)]),
      ),
      'init median': `${median(times[measured.name] ?? []).toFixed(1)} ms`,
    })),
  );
  const share = median(times.ledger ?? []) - median(times.baseline ?? []);
  console.log(
    `sqs-inbox's own share: ${kib(ledger.shares['sqs-inbox'] ?? 0)} of ${kib(ledger.bytes)} minified, and ${share.toFixed(1)} ms of ${median(times.ledger ?? []).toFixed(1)} ms init (the ledger's median less the baseline's)`,
  );
  return 0;
}

await runCommand('npm run bench:init', main);

// `npm run check:package` (in `npm test`): packs the package as `npm publish` would and checks
// what a user installs — the manifest runs nothing at install (no `prepare`, no install
// scripts), publint finds nothing (`--strict`), and @arethetypeswrong/cli resolves every entry
// point to matching JavaScript and types under node10, node16 (ESM and CJS) and bundler; the
// outbox relay's pre-built function is in it and runs on plain Node.js, with nothing installed;
// and no entry but `sqs-inbox/testing` reaches a module of the testing kit, lazy imports included.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { build } from 'esbuild';
import { InboxEnvironment } from '../src/constants/index.js';
import { runChild } from '../tools/cli/runChild.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { onShutdown } from '../tools/cli/shutdown.js';
import { projectRoot } from '../tools/emulator/paths.js';

/** What dist/relay-function holds: the handler `index.handler`, its source map, the licenses. */
const RELAY_FUNCTION_FILES = ['index.mjs', 'index.mjs.map', 'THIRD_PARTY_LICENSES.txt'];

/** Loads the relay function from the current directory as Lambda would, and relays no records. */
const RUN_RELAY_FUNCTION = `process.env.AWS_REGION = 'eu-west-1';
process.env.${InboxEnvironment.RelayDeadLetterQueueUrl} = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq';
const { handler } = await import('./index.mjs');
console.log(JSON.stringify(await handler({ Records: [] }, {})));`;

/** The testing kit's modules in the built trees: only its own entry may reach them. */
const TESTING_KIT = /^dist\/(esm|cjs)\/testing\//;

/** Scripts npm runs when it installs a package; a tarball must carry none of them. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'] as const;

new Command('npm run check:package')
  .description('pack the package and check what a user would install (npm test runs it)')
  .parse();

await runCommand('npm run check:package', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sqs-inbox-package-'));
  onShutdown(() => rmSync(workDir, { recursive: true, force: true }));
  const tarball = await pack(workDir);
  const unpacked = join(workDir, 'unpacked');
  mkdirSync(unpacked);
  await must('tar', ['-xzf', tarball, '-C', unpacked]);
  const packageDir = join(unpacked, 'package');
  checkManifest(join(packageDir, 'package.json'));
  await checkRelayFunction(join(packageDir, 'dist', 'relay-function'));
  await checkEntriesLeaveTestingKit(packageDir);
  await must(bin('publint'), ['run', packageDir, '--strict']);
  await must(bin('attw'), [tarball, '--format', 'table-flipped']);
  console.log('npm run check:package: the packed tarball is clean');
  return 0;
});

async function pack(workDir: string): Promise<string> {
  const { code, stdout } = await runChild(
    'npm',
    ['pack', '--json', '--pack-destination', workDir],
    { cwd: projectRoot, capture: true },
  );
  if (code !== 0) throw new CommandError(`npm pack exited ${code}`);
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[];
  if (packed === undefined) throw new CommandError('npm pack reported no tarball');
  return join(workDir, packed.filename);
}

function checkManifest(path: string): void {
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { scripts?: Record<string, string> };
  const found = INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name] !== undefined);
  if (found.length > 0) {
    throw new CommandError(
      `the packed package.json carries ${found.join(', ')}: npm runs (or, under allowScripts, lists) it on every install; build on prepack instead`,
    );
  }
}

/** The files the OutboxRelay construct deploys, and that they relay an empty batch on their own. */
async function checkRelayFunction(dir: string): Promise<void> {
  const missing = RELAY_FUNCTION_FILES.filter((file) => !existsSync(join(dir, file)));
  if (missing.length > 0) {
    throw new CommandError(
      `the packed package lacks the relay's function (${missing.join(', ')} in dist/relay-function): npm run build makes it`,
    );
  }
  const { code, stdout } = await runChild(
    process.execPath,
    ['--input-type=module', '-e', RUN_RELAY_FUNCTION],
    { cwd: dir, capture: true },
  );
  const expected = '{"batchItemFailures":[]}';
  if (code !== 0 || stdout.trim() !== expected) {
    throw new CommandError(
      `the packed relay function, run with plain node and nothing installed, exited ${code} and printed ${JSON.stringify(stdout.trim())} (expected ${expected})`,
    );
  }
}

/**
 * Every module each entry's file imports, transitively (`import()` and `require` too, other
 * packages left out), as esbuild finds them: none of the testing kit but from its own entry.
 */
async function checkEntriesLeaveTestingKit(packageDir: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, { default: string }>>;
  };
  for (const [entry, conditions] of Object.entries(manifest.exports)) {
    if (entry === './testing' || typeof conditions === 'string') continue;
    for (const { default: file } of Object.values(conditions)) {
      const reached = await modulesReachedFrom(packageDir, file);
      const kit = reached.filter((path) => TESTING_KIT.test(path));
      if (kit.length > 0) {
        throw new CommandError(
          `the entry ${entry} (${file}) reaches the testing kit: ${kit.slice(0, 5).join(', ')}${kit.length > 5 ? ` and ${kit.length - 5} more` : ''}; only sqs-inbox/testing may import src/testing`,
        );
      }
    }
  }
}

async function modulesReachedFrom(packageDir: string, file: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [join(packageDir, file)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    packages: 'external',
    logLevel: 'silent',
  });
  return Object.keys(metafile.inputs).map((input) =>
    relative(packageDir, join(process.cwd(), input)),
  );
}

async function must(command: string, args: readonly string[]): Promise<void> {
  const { code } = await runChild(command, args, { cwd: projectRoot });
  if (code !== 0) throw new CommandError(`${command} ${args.join(' ')} exited ${code}`);
}

function bin(name: string): string {
  return join(projectRoot, 'node_modules', '.bin', name);
}

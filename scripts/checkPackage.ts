// `npm run check:package` (in `npm test`): packs the package as `npm publish` would and checks
// what a user installs — the manifest runs nothing at install (no `prepare`, no install
// scripts), publint finds nothing (`--strict`), and @arethetypeswrong/cli resolves every entry
// point to matching JavaScript and types under node10, node16 (ESM and CJS) and bundler; the
// outbox relay's pre-built function is in it and runs on plain Node.js, with nothing installed;
// and no entry but `sqs-inbox/testing` reaches a module of the testing kit, lazy imports included.
// `npm publish --dry-run` would upload the same files, corrects nothing in the manifest, and
// publishes with provenance; the tarball and the root entry's bundle keep to etc/size-budget.json.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Command } from 'commander';
import { build } from 'esbuild';
import { InboxEnvironment } from '../src/constants/index.js';
import { runChild } from '../tools/cli/runChild.js';
import { CommandError, runCommand } from '../tools/cli/runCommand.js';
import { onShutdown } from '../tools/cli/shutdown.js';
import { projectRoot } from '../tools/emulator/paths.js';
import { type BundleInput, overBudget, parseSizeBudget } from '../tools/release/sizeBudget.js';

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
  const packed = await pack(workDir);
  const tarball = join(workDir, packed.filename);
  // Started now, awaited last: it reads the files the pack just built, and takes seconds.
  const published = checkPublishDryRun(packed.files);
  published.catch(() => undefined); // reported by the await below, not as unhandled
  const unpacked = join(workDir, 'unpacked');
  mkdirSync(unpacked);
  await must('tar', ['-xzf', tarball, '-C', unpacked]);
  const packageDir = join(unpacked, 'package');
  checkManifest(join(packageDir, 'package.json'));
  await checkRelayFunction(join(packageDir, 'dist', 'relay-function'));
  await checkEntriesLeaveTestingKit(packageDir);
  await must(bin('publint'), ['run', packageDir, '--strict']);
  await must(bin('attw'), [tarball, '--format', 'table-flipped']);
  await checkSizeBudget(packageDir, packed.size);
  await published;
  console.log('npm run check:package: the packed tarball is clean');
  return 0;
});

/** What `npm pack --json` and `npm publish --dry-run --json` report of the tarball. */
interface PackReport {
  readonly filename: string;
  readonly size: number;
  readonly files: readonly { readonly path: string }[];
}

async function pack(workDir: string): Promise<PackReport> {
  const { code, stdout } = await runChild(
    'npm',
    ['pack', '--json', '--pack-destination', workDir],
    { cwd: projectRoot, capture: true },
  );
  if (code !== 0) throw new CommandError(`npm pack exited ${code}`);
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as PackReport[];
  if (packed === undefined) throw new CommandError('npm pack reported no tarball');
  return packed;
}

/**
 * `npm publish --dry-run` of the built tree (scripts off: the pack built it): the same files as
 * the pack, no manifest field npm would correct (it drops a `./`-prefixed `bin`, npm 11), and
 * `publishConfig` asking for provenance. The provenance statement itself is made only by a real
 * publish from CI (.github/workflows/release.yml); a dry run cannot prove it.
 */
async function checkPublishDryRun(packedFiles: PackReport['files']): Promise<void> {
  const { stdout, stderr } = await promisify(execFile)(
    'npm',
    ['publish', '--dry-run', '--json', '--ignore-scripts'],
    { cwd: projectRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  const corrected = stderr
    .split('\n')
    .filter((line) => /auto-corrected|corrected:|invalid and removed/.test(line));
  if (corrected.length > 0) {
    throw new CommandError(`npm publish would correct package.json:\n${corrected.join('\n')}`);
  }
  const report = Object.values(JSON.parse(stdout) as Record<string, PackReport>)[0];
  const paths = (files: PackReport['files'] = []) => files.map((file) => file.path).sort();
  const [publishedPaths, packedPaths] = [paths(report?.files), paths(packedFiles)];
  const differ = [
    ...publishedPaths.filter((path) => !packedPaths.includes(path)),
    ...packedPaths.filter((path) => !publishedPaths.includes(path)),
  ];
  if (differ.length > 0 || publishedPaths.length === 0) {
    throw new CommandError(
      `npm publish would upload other files than npm pack packs: ${differ.slice(0, 10).join(', ') || 'none reported'}`,
    );
  }
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    publishConfig?: { provenance?: unknown; access?: unknown };
  };
  if (manifest.publishConfig?.provenance !== true || manifest.publishConfig.access !== 'public') {
    throw new CommandError(
      `package.json publishConfig is ${JSON.stringify(manifest.publishConfig)}: it must be { "access": "public", "provenance": true }, so that every publish states where it was built`,
    );
  }
}

/** The tarball's packed bytes and each budgeted entry's minified, gzipped ESM bundle. */
async function checkSizeBudget(packageDir: string, tarballBytes: number): Promise<void> {
  const budget = parseSizeBudget(
    readFileSync(join(projectRoot, 'etc', 'size-budget.json'), 'utf8'),
  );
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: { default: string } }>;
  };
  const entries: Record<string, { gzipBytes: number; inputs: BundleInput[] }> = {};
  for (const entry of Object.keys(budget.entryMinGzipBytes)) {
    const conditions = manifest.exports[entry];
    const file = typeof conditions === 'string' ? undefined : conditions?.import?.default;
    if (file !== undefined) entries[entry] = await minifiedBundle(packageDir, file);
  }
  const problems = overBudget(budget, { tarballBytes, entries });
  if (problems.length > 0) throw new CommandError(problems.join('\n'));
  const sizes = Object.entries(entries).map(
    ([entry, { gzipBytes }]) => `${entry} ${gzipBytes} B gzipped`,
  );
  console.log(
    `npm run check:package: within etc/size-budget.json — tarball ${tarballBytes} B, ${sizes.join(', ')}`,
  );
}

async function minifiedBundle(
  packageDir: string,
  file: string,
): Promise<{ gzipBytes: number; inputs: BundleInput[] }> {
  const { outputFiles, metafile } = await build({
    entryPoints: [join(packageDir, file)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    write: false,
    metafile: true,
    outdir: join(packageDir, 'size-budget'),
    logLevel: 'silent',
  });
  const [output] = Object.values(metafile.outputs);
  const inputs = Object.entries(output?.inputs ?? {}).map(([path, { bytesInOutput }]) => ({
    path: relative(packageDir, join(process.cwd(), path)),
    bytes: bytesInOutput,
  }));
  return { gzipBytes: gzipSync(outputFiles[0]?.contents ?? new Uint8Array()).length, inputs };
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

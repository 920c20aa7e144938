import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../tools/emulator/paths.js';

/** What a command printed, and how it ended. */
export interface CommandResult {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs a command in its own process group (killed if the test process is interrupted) and
 * collects its output; never rejects on a non-zero exit, so a test can assert on it.
 */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMillis?: number },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const kill = () => child.pid && child.exitCode === null && process.kill(-child.pid, 'SIGKILL');
    const timer = setTimeout(kill, options.timeoutMillis ?? 300_000);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Throws with the command's output unless it exited 0. */
export async function runOrThrow(...args: Parameters<typeof run>): Promise<string> {
  const result = await run(...args);
  if (result.code !== 0) {
    throw new Error(`${args[0]} ${args[1].join(' ')} exited ${result.code}:\n${result.output}`);
  }
  return result.output;
}

/** The version of a package installed in this repository, so the consumer gets the same one. */
function installedVersion(name: string): string {
  const path = join(projectRoot, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

/** `npm pack` of this repository (which builds it through `prepare`); the tarball's path. */
export async function packLibrary(destination: string): Promise<string> {
  const output = await runOrThrow('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: projectRoot,
  });
  const [packed] = JSON.parse(output.slice(output.indexOf('[\n'))) as Array<{ filename: string }>;
  if (!packed) throw new Error(`npm pack printed no tarball:\n${output}`);
  return join(destination, packed.filename);
}

/** The packages a user installs beside the library for the quick start and its CDK app. */
export const CONSUMER_PACKAGES = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/util-dynamodb',
  '@aws-sdk/client-sqs',
  'aws-cdk-lib',
  'constructs',
  'esbuild',
  'zod',
  'cdk-nag',
  'tsx',
  'typescript',
  '@types/node',
] as const;

/**
 * A fresh npm project in the system's temporary directory, outside this repository, with the
 * packed library and its peers installed as a user would (`npm install`, same versions as this
 * repository's lock file so that npm's cache serves them).
 */
export async function createConsumerProject(
  tarball: string,
  files: Readonly<Record<string, string>>,
  extraPackages: readonly string[] = [],
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sqs-inbox-consumer-'));
  const manifest = { name: 'sqs-inbox-consumer', private: true, type: 'module' };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const packages = [
    ...CONSUMER_PACKAGES.map((name) => `${name}@${installedVersion(name)}`),
    ...extraPackages,
  ];
  await runOrThrow(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...packages],
    { cwd: dir, timeoutMillis: 600_000 },
  );
  return dir;
}

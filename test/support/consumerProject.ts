import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../../tools/emulator/paths.js';
import { runOrThrow } from './run.js';

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
  // The outbox relay sends with these too (optional peers, needed by sqs-inbox/relay).
  '@aws-sdk/client-sns',
  '@aws-sdk/client-eventbridge',
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
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sqs-inbox-consumer-'));
  const manifest = { name: 'sqs-inbox-consumer', private: true, type: 'module' };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const packages = CONSUMER_PACKAGES.map((name) => `${name}@${installedVersion(name)}`);
  await runOrThrow(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...packages],
    { cwd: dir, timeoutMillis: 600_000 },
  );
  return dir;
}

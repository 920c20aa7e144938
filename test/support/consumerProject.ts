import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { projectRoot } from '../../tools/emulator/paths.js';
import { runOrThrow } from './run.js';

/** The version of a package installed in this repository, so the consumer gets the same one. */
function installedVersion(name: string): string {
  const path = join(projectRoot, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

/**
 * The environment variable that picks the peers' versions in the consumer project: unset (or
 * `repository`) for the versions installed in this repository, `floor` for the lowest version
 * each of the library's peer ranges admits.
 */
export const PEERS_VARIABLE = 'SQS_INBOX_PEERS';

/** The peers' versions a consumer project installs (see {@link PEERS_VARIABLE}). */
export const PeerVersions = { Repository: 'repository', Floor: 'floor' } as const;
export type PeerVersions = (typeof PeerVersions)[keyof typeof PeerVersions];

/** The peers' versions asked for by {@link PEERS_VARIABLE}; throws on a value it does not know. */
export function peerVersionsFromEnvironment(env: NodeJS.ProcessEnv = process.env): PeerVersions {
  const value = env[PEERS_VARIABLE] || PeerVersions.Repository;
  const known = Object.values(PeerVersions) as string[];
  if (!known.includes(value)) {
    throw new Error(`${PEERS_VARIABLE}=${value} is not one of ${known.join(', ')}.`);
  }
  return value as PeerVersions;
}

/**
 * The lowest version a peer range admits: `^3.931.0`, `~3.931.0`, `>=0.19.0` and `3.931.0` give
 * their version. Other forms are refused, so a new one is handled here on purpose.
 */
export function lowestVersion(name: string, range: string): string {
  const match = /^(?:\^|~|>=)?(\d+\.\d+\.\d+)$/.exec(range.trim());
  if (!match?.[1]) {
    throw new Error(
      `peerDependencies["${name}"] is "${range}": give it as ^x.y.z, ~x.y.z, >=x.y.z or x.y.z so its lowest version is plain.`,
    );
  }
  return match[1];
}

/** Each peer of the library (package.json's `peerDependencies`) with its lowest version. */
export function peerFloors(): Readonly<Record<string, string>> {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };
  return Object.fromEntries(
    Object.entries(manifest.peerDependencies).map(([name, range]) => [
      name,
      lowestVersion(name, range),
    ]),
  );
}

/** The version of `name` a consumer project installs under `peers`. */
export function consumerVersion(name: string, peers: PeerVersions): string {
  const floor = peers === PeerVersions.Floor ? peerFloors()[name] : undefined;
  return floor ?? installedVersion(name);
}

/**
 * The environment variable that names a tarball `npm pack` already made of this checkout, for the
 * `consumer` project to install instead of packing (and building) the library again.
 */
export const TARBALL_VARIABLE = 'SQS_INBOX_TARBALL';

/**
 * The tarball {@link TARBALL_VARIABLE} names, or `undefined` when it is unset (the project packs
 * its own); throws when it names no file by an absolute path.
 */
export function tarballFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[TARBALL_VARIABLE];
  if (!given) return undefined;
  if (!isAbsolute(given) || !existsSync(given)) {
    throw new Error(`${TARBALL_VARIABLE}=${given} is not the absolute path of a packed tarball.`);
  }
  return given;
}

/** `npm pack` of this repository (which builds it through `prepack`); the tarball's path. */
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
  // The sqs-inbox command's --function reads the function with it (an optional peer).
  '@aws-sdk/client-lambda',
  // The sqs-inbox command's redrive audit records its caller with it (an optional peer).
  '@aws-sdk/client-sts',
  // sqs-inbox/otel's (an optional peer).
  '@opentelemetry/api',
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
 * packed library and its peers installed as a user would (`npm install`): by default the same
 * versions as this repository's lock file, so that npm's cache serves them; with
 * `peers: 'floor'` the lowest version of each peer the library declares. `packageNames` are
 * installed at those versions (default: the quick start's and its app's), `extraPackages` as
 * given (`name@version`).
 */
export async function createConsumerProject(
  tarball: string,
  files: Readonly<Record<string, string>>,
  peers: PeerVersions = PeerVersions.Repository,
  packageNames: readonly string[] = CONSUMER_PACKAGES,
  extraPackages: readonly string[] = [],
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sqs-inbox-consumer-'));
  const manifest = { name: 'sqs-inbox-consumer', private: true, type: 'module' };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const packages = packageNames.map((name) => `${name}@${consumerVersion(name, peers)}`);
  await npmInstall(dir, [tarball, ...packages, ...extraPackages]);
  return dir;
}

/**
 * Installs packages into `dir` (a project of their own, beside the consumer's `node_modules`),
 * so a check can see a package the consumer project must not have.
 */
export async function installApart(dir: string, packages: readonly string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  await npmInstall(dir, packages);
}

function npmInstall(dir: string, packages: readonly string[]): Promise<string> {
  return runOrThrow(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages],
    {
      cwd: dir,
      timeoutMillis: 600_000,
    },
  );
}

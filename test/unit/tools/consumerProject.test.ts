import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CONSUMER_PACKAGES,
  lowestVersion,
  PeerVersions,
  peerFloors,
  peerVersionsFromEnvironment,
  tarballFromEnvironment,
} from '../../support/consumerProject.js';

/** The optional peer the consumer project installs in a folder of its own (see that test). */
const INSTALLED_APART = '@aws-sdk/client-dynamodb-streams';

describe('the consumer project’s peers', () => {
  it('installs every peer package.json declares, so a new peer is tested at its floor too', () => {
    const installed = new Set<string>([...CONSUMER_PACKAGES, INSTALLED_APART]);
    const missing = Object.keys(peerFloors()).filter((name) => !installed.has(name));
    expect(missing).toEqual([]);
  });

  it.each([
    ['^3.931.0', '3.931.0'],
    ['~10.5.1', '10.5.1'],
    ['>=0.19.0', '0.19.0'],
    ['2.269.0', '2.269.0'],
  ])('reads the lowest version of %s as %s', (range, version) => {
    expect(lowestVersion('p', range)).toBe(version);
  });

  it.each(['^3 || ^4', '3.x', '^3.9', '^3.931.0-beta.1', '*'])(
    'refuses the range %s, naming the forms it reads',
    (range) => {
      expect(() => lowestVersion('p', range)).toThrow(/give it as \^x\.y\.z, ~x\.y\.z, >=x\.y\.z/);
    },
  );

  it('takes the repository’s versions by default and refuses an unknown SQS_INBOX_PEERS', () => {
    expect(peerVersionsFromEnvironment({})).toBe(PeerVersions.Repository);
    expect(peerVersionsFromEnvironment({ SQS_INBOX_PEERS: 'floor' })).toBe(PeerVersions.Floor);
    expect(() => peerVersionsFromEnvironment({ SQS_INBOX_PEERS: 'lowest' })).toThrow(
      /SQS_INBOX_PEERS=lowest is not one of repository, floor/,
    );
  });
});

describe('the tarball the consumer project installs', () => {
  it('packs its own when SQS_INBOX_TARBALL is unset or empty', () => {
    expect(tarballFromEnvironment({})).toBeUndefined();
    expect(tarballFromEnvironment({ SQS_INBOX_TARBALL: '' })).toBeUndefined();
  });

  it('installs the file SQS_INBOX_TARBALL names by an absolute path', () => {
    const file = fileURLToPath(import.meta.url);
    expect(tarballFromEnvironment({ SQS_INBOX_TARBALL: file })).toBe(file);
  });

  // package.json exists relative to the directory Vitest runs in: refused all the same.
  it.each(['package.json', '/nowhere/sqs-inbox-0.1.0.tgz'])(
    'refuses SQS_INBOX_TARBALL=%s, a relative path or no file, naming the variable',
    (path) => {
      expect(() => tarballFromEnvironment({ SQS_INBOX_TARBALL: path })).toThrow(
        `SQS_INBOX_TARBALL=${path} is not the absolute path of a packed tarball.`,
      );
    },
  );
});

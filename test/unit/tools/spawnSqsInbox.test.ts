import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawnSqsInbox } from '../../../tools/cli/spawnSqsInbox.js';

/** Nothing listens here: a command that got credentials would be refused the connection. */
const NO_ONE = 'http://127.0.0.1:9';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('spawnSqsInbox, the command as a user runs it', () => {
  it('gives the command neither the AWS variables nor the home of this process: it finds no credentials', async () => {
    const home = mkdtempSync(join(tmpdir(), 'spawn-test-home-'));
    mkdirSync(join(home, '.aws'));
    writeFileSync(
      join(home, '.aws', 'credentials'),
      '[default]\naws_access_key_id = fromHome\naws_secret_access_key = fromHome\n',
    );
    vi.stubEnv('HOME', home);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'fromProcess');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fromProcess');
    try {
      const { code, stderr } = await spawnSqsInbox(
        ['message', 'ledger', '--table', 'ledger-inbox', '--key', 'k'],
        { AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_DYNAMODB: NO_ONE },
      ).ended;

      expect(code, stderr).toBe(3);
      expect(stderr).toMatch(/^sqs-inbox: AWS refused: CredentialsProviderError/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);

  it('gives the variables it is handed, and the two streams apart', async () => {
    const { code, stdout, stderr } = await spawnSqsInbox(
      ['message', 'ledger', '--table', 'ledger-inbox', '--key', 'k'],
      {
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL_DYNAMODB: NO_ONE,
      },
    ).ended;

    expect(code, stderr).toBe(3);
    expect(stderr).toMatch(/^sqs-inbox: AWS refused: .*ECONNREFUSED 127\.0\.0\.1:9/);
    expect(stdout).toBe('');
  }, 30_000);
});

import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../tools/emulator/paths.js';
import { CdkRunner, CdkStoppedError } from '../../../tools/verify/CdkRunner.js';

describe('CdkRunner once stopped', () => {
  it('starts no deploy after a stop (a Ctrl-C that came as the bootstrap ended): it refuses at once, as stopped, with nothing spawned', async () => {
    const cdk = new CdkRunner({ kind: 'emulator', endpoint: 'http://127.0.0.1:9' }, projectRoot);

    expect(await cdk.stop()).toBe(false);

    await expect(cdk.run(['deploy', 'SqsInboxReference'])).rejects.toThrow(CdkStoppedError);
    await expect(cdk.run(['bootstrap'])).rejects.toThrow(
      'cdklocal bootstrap not started: stopping',
    );
  });
});

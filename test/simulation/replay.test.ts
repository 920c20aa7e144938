import { describe, expect, it } from 'vitest';
import { sim } from './support/simCommand.js';

describe('npm run sim', () => {
  it('replays a seed in a new process with the same trace, and prints it', async () => {
    const [first, second] = await Promise.all([sim(['--seed', '4242']), sim(['--seed', '4242'])]);

    expect(first?.code).toBe(0);
    expect(first?.output).toMatch(/^\s+\d+\.\d{3}s lambda-1 /m);
    expect(first?.output).toMatch(/^trace hash: [0-9a-f]{8}$/m);
    expect(second?.output).toBe(first?.output);
  });
});

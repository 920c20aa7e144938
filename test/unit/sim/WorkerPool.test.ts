import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleSimulation } from '../../../tools/sim/runner/bundleSimulation.js';
import { WorkerPool } from '../../../tools/sim/runner/WorkerPool.js';

describe('WorkerPool', () => {
  it('removes its bundle’s temporary folder when it stops, so runs leave nothing in the temporary directory', async () => {
    const workerPath = await bundleSimulation();
    const pool = await WorkerPool.start(workerPath, 1);
    const reply = await pool.run({ type: 'run', seeds: [1], hashesOf: [], keepTrace: false });
    expect(reply.passed).toBe(1);

    pool.stop();

    expect(existsSync(dirname(workerPath))).toBe(false);
  });
});

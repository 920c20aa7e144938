import { describe, expect, it } from 'vitest';
import { ledgerProblems } from '../../../bench/checkLedger.js';
import { KIT_VARIANTS } from '../../../bench/kitVariants.js';
import { makeLedgerWorkload } from '../../../bench/ledgerWorkload.js';

const workload = makeLedgerWorkload({ records: 200, copyShare: 0.2, accounts: 5, batchSize: 10 });
const inMemory = KIT_VARIANTS.filter((variant) => variant.name !== 'emulator');

describe('the bench:kit DynamoDBs', () => {
  it.each(inMemory.map((variant) => [variant.name, variant] as const))(
    '%s runs the reference ledger right: each payment once, each copy a duplicate',
    async (_, variant) => {
      const run = await variant.start('no endpoint: in memory');
      const statuses: Record<string, number> = {};
      for (const batch of workload.batches) {
        for (const status of await run.deliver(batch))
          statuses[status] = (statuses[status] ?? 0) + 1;
      }
      expect(ledgerProblems(workload, { statuses, ...(await run.read()) })).toEqual([]);
      expect(statuses).toEqual({ processed: 160, duplicate: 40 });
      run.close();
    },
  );

  it('names the emulator last, the baseline of the ratios', () => {
    expect(KIT_VARIANTS.map((variant) => variant.name)).toEqual(['kit', 'kit-sdk', 'emulator']);
  });
});

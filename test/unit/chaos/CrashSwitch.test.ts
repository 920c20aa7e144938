import { describe, expect, it, vi } from 'vitest';
import { CrashSwitch, type CrashSwitchWiring } from '../../../scripts/chaos/CrashSwitch.js';
import { CrashPoint, type WorkerReport } from '../../../scripts/chaos/workerProtocol.js';

/** A switch whose reports are recorded; the freeze-and-SIGKILL callback is never run here. */
function crashSwitch(overrides: Partial<CrashSwitchWiring>) {
  const reports: WorkerReport[] = [];
  const questions: string[] = [];
  const wiring: CrashSwitchWiring = {
    point: CrashPoint.BeforeTransaction,
    passes: 0,
    visibilitySeconds: 0,
    random: () => 0.1,
    report: (report) => reports.push(report),
    ask: async (question) => {
      questions.push(question);
      return true;
    },
    ...overrides,
  };
  return { crash: new CrashSwitch(wiring), reports, questions };
}

/** Whether a call stopped at a crash (its promise never settles) within a few ticks. */
async function stops(call: Promise<void>, waitMillis = 20): Promise<boolean> {
  const settled = await Promise.race([
    call.then(() => true),
    new Promise((r) => setTimeout(r, waitMillis, false)),
  ]);
  return settled === false;
}

const batch = (size: number, committed: number) => ({
  size,
  committed,
  receivedAtMillis: Date.now(),
});

describe('CrashSwitch', () => {
  it('passes the planned number of occurrences of its point, then stops and reports the crash', async () => {
    const { crash, reports } = crashSwitch({ point: CrashPoint.AfterCommit, passes: 2 });

    expect(await stops(crash.reach(CrashPoint.AfterCommit, 'first'))).toBe(false);
    expect(await stops(crash.reach(CrashPoint.MidBatch, 'another point'))).toBe(false);
    expect(await stops(crash.reach(CrashPoint.AfterCommit, 'second'))).toBe(false);
    expect(await stops(crash.reach(CrashPoint.AfterCommit, 'third'))).toBe(true);

    expect(reports).toEqual([
      { type: 'crash', point: CrashPoint.AfterCommit, detail: 'third', concurrent: false },
    ]);
  });

  it('crashes once only, and never after it is disarmed', async () => {
    const once = crashSwitch({ point: CrashPoint.BeforeTransaction });
    await stops(once.crash.beforeTransaction('ledger#e-1'));
    await stops(once.crash.beforeTransaction('ledger#e-2'));
    expect(once.reports).toHaveLength(1);

    const disarmed = crashSwitch({ point: CrashPoint.BeforeTransaction });
    disarmed.crash.disarm();
    expect(await stops(disarmed.crash.beforeTransaction('ledger#e-1'))).toBe(false);
    expect(disarmed.reports).toEqual([]);
  });

  it('counts a mid-batch crash only after a commit that leaves records of the batch uncommitted', async () => {
    const { crash, reports } = crashSwitch({ point: CrashPoint.MidBatch });

    expect(await stops(crash.afterTransaction('inventory#e-1', 'committed', batch(1, 1)))).toBe(
      false,
    );
    expect(
      await stops(
        crash.afterTransaction('inventory#e-2', 'TransactionCanceledException', batch(3, 1)),
      ),
    ).toBe(false);
    expect(await stops(crash.afterTransaction('inventory#e-3', 'committed', batch(3, 2)))).toBe(
      true,
    );
    expect(reports[0]).toMatchObject({
      point: CrashPoint.MidBatch,
      detail: expect.stringContaining('2 of 3'),
    });
  });

  it('arms a concurrent-copies crash only when another consumer holds a copy, then kills around that transaction', async () => {
    const nobody = crashSwitch({ point: CrashPoint.ConcurrentCopies, ask: async () => false });
    await nobody.crash.beforeHandler(
      { messageId: 'm-1', key: 'e-1' },
      'inventory#e-1',
      batch(1, 0),
    );
    expect(await stops(nobody.crash.beforeTransaction('inventory#e-1'))).toBe(false);
    expect(
      await stops(nobody.crash.afterTransaction('inventory#e-1', 'committed', batch(1, 1))),
    ).toBe(false);

    const before = crashSwitch({ point: CrashPoint.ConcurrentCopies, random: () => 0.1 });
    await before.crash.beforeHandler(
      { messageId: 'm-1', key: 'e-1' },
      'inventory#e-1',
      batch(1, 0),
    );
    expect(await stops(before.crash.beforeTransaction('inventory#e-2'))).toBe(false);
    expect(await stops(before.crash.beforeTransaction('inventory#e-1'))).toBe(true);
    expect(before.questions).toEqual(['copyHeldElsewhere']);
    expect(before.reports[0]).toMatchObject({
      point: CrashPoint.ConcurrentCopies,
      concurrent: true,
    });

    const after = crashSwitch({ point: CrashPoint.ConcurrentCopies, random: () => 0.9 });
    await after.crash.beforeHandler({ messageId: 'm-1', key: 'e-1' }, 'inventory#e-1', batch(1, 0));
    expect(await stops(after.crash.beforeTransaction('inventory#e-1'))).toBe(false);
    expect(
      await stops(after.crash.afterTransaction('inventory#e-1', 'committed', batch(1, 1))),
    ).toBe(true);
  });

  it('holds a slow handler past the visibility timeout, asks whether another consumer received the message, then kills it holding it or after racing', async () => {
    const holding = crashSwitch({ point: CrashPoint.SlowHandler, random: () => 0.1 });
    const started = Date.now();
    void holding.crash.beforeHandler({ messageId: 'm-1', key: 'e-1' }, 'ledger#e-1', batch(1, 0));
    await vi.waitFor(() => expect(holding.reports).toHaveLength(1), { timeout: 2000 });
    // Visibility 0 s: the handler is held 250 ms past the moment the message became visible.
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(holding.questions).toEqual(['receivedElsewhere']);
    expect(holding.reports[0]).toMatchObject({ point: CrashPoint.SlowHandler, concurrent: true });

    const racing = crashSwitch({
      point: CrashPoint.SlowHandler,
      random: () => 0.9,
      ask: async () => false,
    });
    expect(
      await stops(
        racing.crash.beforeHandler({ messageId: 'm-1', key: 'e-1' }, 'ledger#e-1', batch(1, 0)),
        1000,
      ),
    ).toBe(false);
    expect(
      await stops(
        racing.crash.afterTransaction('ledger#e-1', 'TransactionCanceledException', batch(1, 0)),
      ),
    ).toBe(true);
    expect(racing.reports[0]).toMatchObject({
      concurrent: false,
      detail: expect.stringContaining('its transaction: TransactionCanceledException'),
    });
  });
});

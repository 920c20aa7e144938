import { describe, expect, it, vi } from 'vitest';
import { CrashSwitch, type CrashSwitchWiring } from '../../../tools/chaos/CrashSwitch.js';
import { CrashPoint, type CrashReport } from '../../../tools/chaos/workerProtocol.js';

/** A switch whose crash reports are recorded instead of freezing the process. */
function crashSwitch(overrides: Partial<CrashSwitchWiring>) {
  const reports: CrashReport[] = [];
  const questions: string[] = [];
  const wiring: CrashSwitchWiring = {
    point: CrashPoint.BeforeTransaction,
    passes: 0,
    visibilitySeconds: 0,
    random: () => 0.1,
    halt: (report) => reports.push(report),
    ...overrides,
    // Every question is recorded; the answer is the override's, else yes.
    ask: async (question, message, waitMillis) => {
      questions.push(question);
      return overrides.ask ? overrides.ask(question, message, waitMillis) : true;
    },
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

const batch = (size: number, committed: number, settled = committed) => ({
  size,
  committed,
  settled,
  receivedAtMillis: Date.now(),
});

describe('CrashSwitch', () => {
  it('passes the planned number of occurrences of its point, then stops and reports the crash', async () => {
    const { crash, reports } = crashSwitch({ point: CrashPoint.AfterCommit, passes: 2 });

    expect(await stops(crash.reach(CrashPoint.AfterCommit, 'first'))).toBe(false);
    expect(await stops(crash.reach(CrashPoint.MidBatch, 'another point'))).toBe(false);
    expect(await stops(crash.reach(CrashPoint.AfterCommit, 'second'))).toBe(false);
    expect(await stops(crash.reach(CrashPoint.AfterCommit, 'third'))).toBe(true);

    expect(reports).toEqual([{ type: 'crash', point: CrashPoint.AfterCommit, detail: 'third' }]);
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

  it('counts a mid-batch crash only after a commit while other records of the batch are still open', async () => {
    const { crash, reports } = crashSwitch({ point: CrashPoint.MidBatch });
    // batch(size, committed, settled): the committing record is not settled yet.
    const settle = (pk: string, outcome: string, b: ReturnType<typeof batch>) =>
      stops(crash.afterTransaction(pk, outcome, b));

    expect(await settle('inventory#e-1', 'committed', batch(1, 1, 0))).toBe(false);
    expect(await settle('inventory#e-2', 'TransactionCanceledException', batch(3, 1, 1))).toBe(
      false,
    );
    // The two others already settled (say, as duplicates): nothing is left open.
    expect(await settle('inventory#e-3', 'committed', batch(3, 1, 2))).toBe(false);
    expect(await settle('inventory#e-4', 'committed', batch(3, 2, 1))).toBe(true);
    expect(reports[0]).toMatchObject({
      point: CrashPoint.MidBatch,
      detail: expect.stringMatching(/2 of 3 records committed, 1 still open/),
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
    // Asked when arming; at the kill the supervisor checks who else holds it.
    expect(before.questions).toEqual(['copyHeldElsewhere']);
    expect(before.reports[0]).toMatchObject({
      point: CrashPoint.ConcurrentCopies,
      message: { messageId: 'm-1', key: 'e-1' },
    });

    const answers = [true, false];
    const after = crashSwitch({
      point: CrashPoint.ConcurrentCopies,
      random: () => 0.9,
      ask: async () => answers.shift() ?? false,
    });
    await after.crash.beforeHandler({ messageId: 'm-1', key: 'e-1' }, 'inventory#e-1', batch(1, 0));
    expect(await stops(after.crash.beforeTransaction('inventory#e-1'))).toBe(false);
    expect(
      await stops(after.crash.afterTransaction('inventory#e-1', 'committed', batch(1, 1))),
    ).toBe(true);
    expect(after.reports[0]).toMatchObject({ message: { messageId: 'm-1', key: 'e-1' } });
  });

  it('drops an arm whose record never reached its transaction when the batch settles', async () => {
    const { crash, reports } = crashSwitch({ point: CrashPoint.ConcurrentCopies });
    await crash.beforeHandler({ messageId: 'm-1', key: 'e-1' }, 'inventory#e-1', batch(1, 0));
    crash.batchSettled();

    expect(await stops(crash.beforeTransaction('inventory#e-1'))).toBe(false);
    expect(reports).toEqual([]);
  });

  it('holds a slow handler past the visibility timeout, asks whether another consumer received the message, then kills it holding it or after racing', async () => {
    const holding = crashSwitch({ point: CrashPoint.SlowHandler, random: () => 0.1 });
    const started = Date.now();
    void holding.crash.beforeHandler({ messageId: 'm-1', key: 'e-1' }, 'ledger#e-1', batch(1, 0));
    await vi.waitFor(() => expect(holding.reports).toHaveLength(1), { timeout: 2000 });
    // Visibility 0 s: the handler is held 250 ms past the moment the message became visible.
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(holding.questions).toEqual(['receivedElsewhere']);
    expect(holding.reports[0]).toMatchObject({
      point: CrashPoint.SlowHandler,
      message: { messageId: 'm-1', key: 'e-1' },
    });

    const racing = crashSwitch({ point: CrashPoint.SlowHandler, random: () => 0.9 });
    const held = { messageId: 'm-1', key: 'e-1' };
    expect(await stops(racing.crash.beforeHandler(held, 'ledger#e-1', batch(1, 0)), 1000)).toBe(
      false,
    );
    expect(
      await stops(
        racing.crash.afterTransaction('ledger#e-1', 'TransactionCanceledException', batch(1, 0)),
      ),
    ).toBe(true);
    expect(racing.reports[0]).toMatchObject({
      message: held,
      detail: expect.stringContaining('its transaction: TransactionCanceledException'),
    });
  });

  it('does not crash a slow handler no other consumer received, and tries again on a later message', async () => {
    const alone = crashSwitch({ point: CrashPoint.SlowHandler, ask: async () => false });
    const held = { messageId: 'm-1', key: 'e-1' };
    expect(await stops(alone.crash.beforeHandler(held, 'ledger#e-1', batch(1, 0)), 1000)).toBe(
      false,
    );
    expect(await stops(alone.crash.afterTransaction('ledger#e-1', 'committed', batch(1, 1)))).toBe(
      false,
    );
    expect(await stops(alone.crash.beforeHandler(held, 'ledger#e-2', batch(1, 0)), 1000)).toBe(
      false,
    );

    expect(alone.questions).toEqual(['receivedElsewhere', 'receivedElsewhere']);
    expect(alone.reports).toEqual([]);
  });

  it('at point 6 hangs the planned handler until the batch deadline aborts it, then dies when the batch answered, saying whether in time', async () => {
    const { crash, reports } = crashSwitch({ point: CrashPoint.HangingHandler, passes: 1 });
    const deadline = new AbortController();
    const held = { messageId: 'm-2', key: 'e-2' };

    expect(
      await stops(
        crash.beforeHandler(
          { messageId: 'm-1', key: 'e-1' },
          'ledger#e-1',
          batch(2, 0),
          deadline.signal,
        ),
      ),
    ).toBe(false);
    const hanging = crash.beforeHandler(held, 'ledger#e-2', batch(2, 0), deadline.signal);
    expect(await stops(hanging)).toBe(true);
    deadline.abort();
    expect(await stops(hanging)).toBe(false);
    const late = vi.fn();
    expect(await stops(crash.batchAnswered(new Set(['m-2']), 1_600, late))).toBe(true);

    expect(late).not.toHaveBeenCalled();
    expect(reports).toEqual([
      {
        type: 'crash',
        point: CrashPoint.HangingHandler,
        detail: expect.stringMatching(
          /e-2: its handler hung; the batch answered after 1600 ms of a 2500 ms timeout with it failed/,
        ),
        message: held,
      },
    ]);
  });

  it('at point 6 reports a batch that answered late, or without the hung record failed', async () => {
    const { crash } = crashSwitch({ point: CrashPoint.HangingHandler });
    const deadline = new AbortController();
    deadline.abort();
    await crash.beforeHandler(
      { messageId: 'm-1', key: 'e-1' },
      'ledger#e-1',
      batch(1, 0),
      deadline.signal,
    );
    const late = vi.fn();

    await stops(crash.batchAnswered(new Set(), 900, late));

    expect(late).toHaveBeenCalledOnce();
  });
});

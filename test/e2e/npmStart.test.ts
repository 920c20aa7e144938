import { describe, expect, it } from 'vitest';
import { runScript } from '../support/runScript.js';

const npmStart = (args: string[]) => runScript('scripts/start.ts', args);

describe('npm start', () => {
  it("runs the three consumers and the ledger's outbox relay on demo traffic with duplicates and malformed messages, and every invariant holds across both hops, the notifier's emails read back from the emulator's SES", async () => {
    const { code, output } = await npmStart([
      '--messages',
      '40',
      '--duplicates',
      '0.25',
      '--seed',
      '7',
    ]);

    expect(output).toMatch(
      /sending 40 messages \(\d+ payments published to the payments topic, each credited one relayed by the ledger's outbox to the notifier; \d+ orders put on the orders bus, \d+ delivered twice by their upstream, 3 malformed; seed 7\)/,
    );
    for (const invariant of [
      'all messages settled',
      'each balance = sum of its distinct payments',
      'exactly one ledger entry per payment',
      'no SKU below zero',
      'reserved + available = seeded stock',
      'each order reserved or rejected exactly once',
      'every event its upstream delivered twice (same envelope, new SQS message) applied once',
      'notifier: one receipt per notified payment, with its content (S3, If-None-Match)',
      'notifier: one notification row per committed event, naming an email of that event and its receipt',
      "notifier: one email per event, extra ones only where an attempt sent it and never journaled it, each with the event's reference",
      'every malformed message in a DLQ with its reason',
      'every conflicting payment retried, then dead-lettered on its last receive with its reason, without effect',
      'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
      'every credited payment published in its transaction (an outbox item per credit)',
      'nothing lost between the hops: every published message relayed and committed by the notifier, none dead-lettered by the relay',
    ]) {
      expect(output).toContain(`PASS  ${invariant}`);
    }
    expect(output).toContain('all invariants hold');
    const ledgerRow = /^ledger\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/m.exec(output);
    expect(Number(ledgerRow?.[2])).toBeGreaterThan(0); // duplicates dropped
    expect(Number(ledgerRow?.[3])).toBeGreaterThanOrEqual(2); // the conflicting payment failed twice
    const notifierRow = /^notifier\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/m.exec(output);
    const emails = /(\d+) emails for (\d+) events: 0 extra/.exec(output);
    expect(Number(notifierRow?.[1])).toBeGreaterThan(0);
    expect(emails?.[1]).toBe(emails?.[2]); // no crash in npm start: one email per event
    expect(Number(notifierRow?.[1])).toBe(Number(emails?.[2]));
    // Every payment credited is notified, through the outbox: as many as the ledger processed.
    expect(Number(notifierRow?.[1])).toBe(Number(ledgerRow?.[1]));
    expect(output).toMatch(/outbox relay: [1-9]\d* messages relayed, 0 dead-lettered/);
    expect(code).toBe(0);
  });

  it('rejects a bad option with a message naming it', async () => {
    const { code, output } = await npmStart(['--duplicates', '1.5']);

    expect(output).toContain('the duplicate rate must be in [0, 1) (given 1.5)');
    expect(code).not.toBe(0);
  });
});

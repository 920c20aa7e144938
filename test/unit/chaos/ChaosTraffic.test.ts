import { describe, expect, it } from 'vitest';
import { ChaosTraffic } from '../../../tools/chaos/ChaosTraffic.js';

const waves = (seed: number, count: number, duplicateRate = 0.25) => {
  const traffic = new ChaosTraffic({ seed, duplicateRate, stockPerSku: 100 });
  for (let i = 0; i < count; i++) traffic.nextWave(40);
  return traffic.plan();
};
const eventIdOf = (body: string) => {
  try {
    return (JSON.parse(body) as { eventId?: string }).eventId;
  } catch {
    return undefined;
  }
};

describe('ChaosTraffic', () => {
  it('sends the same traffic for the same seed, and other traffic for another', () => {
    expect(waves(7, 5).messages).toEqual(waves(7, 5).messages);
    expect(waves(8, 5).messages).not.toEqual(waves(7, 5).messages);
  });

  it('sends the requested share of events twice, each copy with the same body and event id', () => {
    const traffic = new ChaosTraffic({ seed: 3, duplicateRate: 0.25, stockPerSku: 100 });
    for (let i = 0; i < 30; i++) traffic.nextWave(40);
    const plan = traffic.plan();
    const counter = traffic.counterPlan();
    // Notifications are not sent: the ledger publishes one per credited payment.
    const events =
      plan.payments.length + plan.orders.length + counter.events.length + plan.malformed.length;
    const sent = new Map<string, number>();
    for (const m of [...plan.messages, ...counter.messages])
      sent.set(m.body, (sent.get(m.body) ?? 0) + 1);

    expect(traffic.sent).toBe(events + plan.duplicates);
    expect(counter.events.length).toBeGreaterThan(0);
    expect(plan.duplicates / events).toBeGreaterThan(0.2);
    expect(plan.duplicates / events).toBeLessThan(0.3);
    expect([...sent.values()].filter((n) => n === 2)).toHaveLength(plan.duplicates);
    expect(Math.max(...sent.values())).toBe(2);
  });

  it('puts some copies right behind their original and others a wave later', () => {
    const traffic = new ChaosTraffic({ seed: 5, duplicateRate: 0.5, stockPerSku: 100 });
    const first = traffic.nextWave(80).filter((m) => m.consumer === 'inventory');
    const second = traffic.nextWave(80).filter((m) => m.consumer === 'inventory');
    const gaps = first
      .map((m, i) => first.findIndex((other, j) => j > i && other.body === m.body) - i)
      .filter((gap) => gap > 0);
    const firstBodies = new Set(first.map((m) => m.body));

    expect(gaps.length).toBeGreaterThan(0);
    // Eight or more messages apart (less only when the original is near the wave's end).
    expect(gaps.filter((gap) => gap >= 8).length).toBeGreaterThanOrEqual(gaps.length / 2);
    expect(second.some((m) => firstBodies.has(m.body))).toBe(true);
  });

  it('sends one malformed message a wave, each naming the error the library must dead-letter it with', () => {
    const plan = waves(9, 4);

    expect(plan.malformed.map((m) => [m.consumer, m.expectedError])).toEqual([
      ['ledger', 'SchemaValidationError'],
      ['inventory', 'EnvelopeMismatchError'],
      // Sent to the notifier's queue directly: it reads only what the relay sends.
      ['notifier', 'EnvelopeMismatchError'],
      ['ledger', 'SchemaValidationError'],
    ]);
    expect(eventIdOf(plan.malformed[1]?.body ?? '')).toBeUndefined();
  });

  it("expects each payment notified once, through the ledger's outbox: its payer's address in the payment, no notification sent", () => {
    const plan = waves(13, 5);
    const payments = new Map(plan.payments.map((p) => [p.eventId, p]));

    expect(plan.notifications.map((n) => n.eventId)).toEqual(plan.payments.map((p) => p.eventId));
    for (const n of plan.notifications)
      expect(n).toEqual({ ...payments.get(n.eventId), email: `${n.accountId}@example.com` });
    for (const p of plan.payments) expect(p.email).toBe(`${p.accountId}@example.com`);
    const sentToNotifier = plan.messages.filter((m) => m.consumer === 'notifier');
    expect(sentToNotifier.every((m) => m.expectedError === 'EnvelopeMismatchError')).toBe(true);
  });

  it('gives payments their account as FIFO message group, and every event a unique id', () => {
    const plan = waves(11, 3);
    const ids = [...plan.payments, ...plan.orders].map((e) => e.eventId);

    expect(new Set(ids).size).toBe(ids.length);
    for (const m of plan.messages.filter((m) => m.consumer === 'ledger' && !m.expectedError))
      expect(m.groupId).toBe((JSON.parse(m.body) as { accountId: string }).accountId);
  });
});

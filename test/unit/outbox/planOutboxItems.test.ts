import { describe, expect, it } from 'vitest';
import { OutgoingMessageError } from '../../../src/errors.js';
import type { OutgoingMessage } from '../../../src/outbox/OutgoingMessage.js';
import { groupItemPk, planOutboxItems } from '../../../src/outbox/planOutboxItems.js';

const FIFO = 'http://localhost:4566/000000000000/credits.fifo';
const OTHER_FIFO = 'http://localhost:4566/000000000000/audit.fifo';

function message(id: string, groupId?: string, destination = FIFO, body = 'x'): OutgoingMessage {
  return {
    id,
    destination,
    kind: groupId ? 'sqs-fifo' : 'sqs',
    body,
    ...(groupId ? { groupId } : {}),
  };
}

describe('planOutboxItems', () => {
  it('gives each ungrouped message its own item and each group one item, in publish order', () => {
    const plans = planOutboxItems([
      message('m1', 'acc-1'),
      message('m2'),
      message('m3', 'acc-2'),
      message('m4', 'acc-1'),
      message('m5', 'acc-1', OTHER_FIFO),
    ]);
    expect(plans.map(({ pk, messages }) => [pk, messages.map(({ id }) => id)])).toEqual([
      [groupItemPk(FIFO, 'acc-1'), ['m1', 'm4']],
      ['msg#m2', ['m2']],
      [groupItemPk(FIFO, 'acc-2'), ['m3']],
      [groupItemPk(OTHER_FIFO, 'acc-1'), ['m5']],
    ]);
    expect(plans[0]?.group).toEqual({ destination: FIFO, groupId: 'acc-1' });
    expect(plans[1]?.group).toBeUndefined();
  });

  it('keys a group by destination and group, whatever their length', () => {
    expect(groupItemPk(FIFO, 'acc-1')).not.toBe(groupItemPk(OTHER_FIFO, 'acc-1'));
    expect(groupItemPk(FIFO, 'acc-1')).not.toBe(groupItemPk(FIFO, 'acc-2'));
    expect(groupItemPk(FIFO, 'g'.repeat(128))).toMatch(/^grp#[0-9a-f]{64}$/);
  });

  it("refuses a group's messages of one transaction that outgrow one item, naming the last", () => {
    const big = 'x'.repeat(200 * 1024);
    const messages = [message('m1', 'g', FIFO, big), message('m2'), message('m3', 'g', FIFO, big)];
    expect(() => planOutboxItems(messages)).toThrow(OutgoingMessageError);
    try {
      planOutboxItems(messages);
    } catch (error) {
      expect((error as OutgoingMessageError).index).toBe(2);
    }
  });
});

import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { copyOperand } from '../../../src/core/copyOperand.js';

describe('copyOperand', () => {
  it('keeps an own __proto__ key a key, so the copy marshals as the original does', () => {
    const item = JSON.parse('{"meta":{"__proto__":{"x":1},"y":2}}') as Record<string, unknown>;

    expect(marshall(copyOperand(item))).toEqual(marshall(item));
  });

  it('copies ArrayBuffers, so changing the original afterwards changes nothing', () => {
    const buffer = Uint8Array.from([1, 2]).buffer;
    const copy = copyOperand({ buffer });

    new Uint8Array(buffer)[0] = 9;

    expect([...new Uint8Array(copy.buffer)]).toEqual([1, 2]);
  });
});

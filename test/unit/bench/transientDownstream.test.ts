import { describe, expect, it } from 'vitest';
import { TransientDownstream } from '../../../bench/transientDownstream.js';

describe("bench:retry's downstream", () => {
  it('refuses every call for its outage from start(), answers after, and counts both', () => {
    let nowMillis = 1_000;
    const downstream = new TransientDownstream(8, () => nowMillis);
    downstream.start();

    expect(() => downstream.call()).toThrow('down for 8000 ms more');
    nowMillis += 7_999;
    expect(() => downstream.call()).toThrow('down for 1 ms more');
    nowMillis += 1;
    downstream.call();
    downstream.call();

    expect({ calls: downstream.calls, refused: downstream.refusedCalls }).toEqual({
      calls: 4,
      refused: 2,
    });
  });

  it('is down before its outage has a start', () => {
    const downstream = new TransientDownstream(0, () => 0);
    expect(() => downstream.call()).toThrow('down');
    downstream.start();
    expect(() => downstream.call()).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { STEP_LIMITS } from '../../../src/constants/index.js';
import { StepResultError } from '../../../src/errors.js';
import { decodeStepResult, encodeStepResult } from '../../../src/steps/encodeStepResult.js';

describe('encodeStepResult', () => {
  it.each([
    ['an object', { chargeId: 'ch_1', cents: 1250, ok: true, none: null }],
    ['an array', [1, 'two', [3]]],
    ['a string', 'sent'],
    ['zero', 0],
    ['false', false],
    ['null', null],
    ['an object without prototype', Object.assign(Object.create(null), { a: 1 })],
  ])('journals %s so that replaying it gives an equal value', (_, value) => {
    expect(decodeStepResult(encodeStepResult('s', value))).toEqual(value);
  });

  it('journals nothing for a step that returned nothing, and replays undefined', () => {
    expect(encodeStepResult('s', undefined)).toBeUndefined();
    expect(decodeStepResult(undefined)).toBeUndefined();
  });

  it.each([
    ['a Date', { at: new Date(0) }, 'the result.at is a Date'],
    ['a Map', new Map(), 'the result is a Map'],
    [
      'Infinity deep inside',
      { a: [{ b: Number.POSITIVE_INFINITY }] },
      'the result.a[0].b is a non-finite number',
    ],
    ['a bigint', 1n, 'the result is a bigint'],
    ['a function', { f: () => 1 }, 'the result.f is a function'],
    ['an undefined member', { a: undefined }, 'the result.a is undefined'],
    ['an undefined element', [undefined], 'the result[0] is undefined'],
  ])(
    'refuses %s with StepResultError naming where it is, not what it holds',
    (_, value, problem) => {
      const error = (() => {
        try {
          encodeStepResult('charge', value);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(StepResultError);
      expect(error).toMatchObject({
        stepName: 'charge',
        problem: expect.stringContaining(problem),
      });
    },
  );

  it('refuses a result that refers back to itself', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => encodeStepResult('s', loop)).toThrow(/refers back to itself/);
  });

  it('accepts the same object twice in a result (shared, not circular)', () => {
    const shared = { id: 1 };
    expect(encodeStepResult('s', { a: shared, b: shared })).toBe('{"a":{"id":1},"b":{"id":1}}');
  });

  it('accepts a result of exactly the size limit and refuses one byte more', () => {
    const fits = 'x'.repeat(STEP_LIMITS.resultBytes - 2); // two quotes
    expect(encodeStepResult('s', fits)).toHaveLength(STEP_LIMITS.resultBytes);
    expect(() => encodeStepResult('s', `${fits}x`)).toThrow(StepResultError);
  });
});

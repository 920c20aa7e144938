import { describe, expect, it } from 'vitest';
import { errorTypeName, recordedErrorName } from '../../../src/errors/errorText.js';
import { LeaseHeldError } from '../../../src/errors.js';

describe('recordedErrorName, the name an entry, a metric or a span keeps of a thrown value', () => {
  it("keeps an Error's class name", () => {
    expect(recordedErrorName(new LeaseHeldError(1_000, 'm-1'))).toBe('LeaseHeldError');
    expect(recordedErrorName(new TypeError('x'))).toBe('TypeError');
  });

  it('keeps NonErrorThrown for a thrown value that is no Error, never its content', () => {
    expect(recordedErrorName({ statusCode: 500, body: 'card 4111' })).toBe('NonErrorThrown');
    expect(recordedErrorName('card 4111')).toBe('NonErrorThrown');
    expect(recordedErrorName(undefined)).toBe('NonErrorThrown');
  });
});

describe('errorTypeName, the type of a thrown value in a reason the operator reads', () => {
  it("names an Error by its class, as its name says (an SDK error's own name)", () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    expect(errorTypeName(throttled)).toBe('ThrottlingException');
  });

  it('names a thrown value that is no Error by its JavaScript type', () => {
    expect(errorTypeName('timeout')).toBe('string');
    expect(errorTypeName({ code: 'ECONNRESET' })).toBe('object');
    expect(errorTypeName(42)).toBe('number');
  });
});

import middy, { type MiddlewareObj } from '@middy/core';
import { describe, expect, it } from 'vitest';
import { refuseMiddlewareUse } from '../../../src/batch/refuseMiddlewareUse.js';
import { InvalidConfigurationError } from '../../../src/errors.js';

describe('refuseMiddlewareUse', () => {
  it('lets the handler serve as middy’s base handler', async () => {
    const handler = refuseMiddlewareUse(async () => ({ batchItemFailures: [] }));

    expect(await middy(handler)({}, {} as never)).toEqual({ batchItemFailures: [] });
  });

  it('fails the invocation in before, when registered with use(), before the handler runs', async () => {
    let ran = false;
    const handler = refuseMiddlewareUse(async () => {
      ran = true;
      return { batchItemFailures: [] };
    });
    let baseRan = false;
    const wrapped = middy(async () => {
      baseRan = true;
    }).use(handler as unknown as MiddlewareObj);

    await expect(wrapped({}, {} as never)).rejects.toThrow(InvalidConfigurationError);
    await expect(wrapped({}, {} as never)).rejects.toThrow(
      /processor\.process as the base handler, not as a middleware: write middy\(processor\.process\)\.use\(/,
    );
    expect({ ran, baseRan }).toEqual({ ran: false, baseRan: false });
  });

  it('leaves property copies and inspection of the handler working', () => {
    const handler = refuseMiddlewareUse(async () => undefined);

    expect(Object.keys(handler)).toEqual([]);
    const copy: Record<string, unknown> = {};
    for (const name of Object.getOwnPropertyNames(handler))
      copy[name] = (handler as unknown as Record<string, unknown>)[name];
    expect(typeof copy.before).toBe('function');
  });
});

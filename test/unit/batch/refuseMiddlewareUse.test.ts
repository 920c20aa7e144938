import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { refuseMiddlewareUse } from '../../../src/batch/refuseMiddlewareUse.js';
import { InvalidConfigurationError } from '../../../src/index.js';

describe('refuseMiddlewareUse', () => {
  it('lets the handler serve as middy’s base handler', async () => {
    const handler = refuseMiddlewareUse(async () => ({ batchItemFailures: [] }));

    expect(await middy(handler)({}, {} as never)).toEqual({ batchItemFailures: [] });
  });

  it('makes middy’s use() throw at creation, saying what to write instead', () => {
    const handler = refuseMiddlewareUse(async () => ({ batchItemFailures: [] }));

    expect(() => middy().use(handler as never)).toThrow(InvalidConfigurationError);
    expect(() => middy().use(handler as never)).toThrow(
      /the processor as the base handler, not a middleware: middy\(processor\.process\)/,
    );
  });

  it('hides its hooks from enumeration', () => {
    const handler = refuseMiddlewareUse(async () => undefined);

    expect(Object.keys(handler)).toEqual([]);
  });
});

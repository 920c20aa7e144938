import type { FaultRates } from '../../tools/sim/world/WorldConfig.js';

/**
 * A world's fault rates with every fault off, its fault window kept.
 *
 * @example
 * ```ts
 * const faults = calmFaults({ untilMillis: 0 }); // no fault, ever
 * ```
 */
export function calmFaults(
  faults: Pick<FaultRates, 'untilMillis'> & Partial<FaultRates>,
): FaultRates {
  return {
    ...faults,
    killPerInvocation: 0,
    crashPointPerInvocation: 0,
    requestLost: 0,
    responseLost: 0,
    requestDuplicated: 0,
    requestClogged: 0,
    transactionConflict: 0,
    throttling: 0,
    slowInvocation: 0,
    staleDeleteKept: 0,
  };
}

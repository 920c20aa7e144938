import { STEP_LIMITS } from '../constants/values.js';
import { StepResultError } from '../errors.js';

/**
 * A step's result as journaled: its JSON text, or undefined when the step returned nothing.
 * Only plain JSON is accepted, so the value a step returns when it runs is the value it
 * returns when replayed from the journal; anything else is a {@link StepResultError} naming
 * where in the result the problem is (never a value).
 *
 * @example
 * ```ts
 * encodeStepResult('charge', { chargeId: 'ch_1' }) // => '{"chargeId":"ch_1"}'
 * ```
 */
export function encodeStepResult(stepName: string, result: unknown): string | undefined {
  if (result === undefined) return undefined;
  const problem = jsonProblem(result, 'the result', new Set());
  if (problem !== undefined) {
    throw new StepResultError(
      stepName,
      `${problem}; return plain JSON (objects, arrays, strings, finite numbers, booleans, null)`,
    );
  }
  const text = JSON.stringify(result);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > STEP_LIMITS.resultBytes) {
    throw new StepResultError(
      stepName,
      `it is ${bytes} bytes as JSON, over the ${STEP_LIMITS.resultBytes}-byte limit; keep it elsewhere (S3) and return its address`,
    );
  }
  return text;
}

/**
 * A journaled result back as the step's value.
 *
 * @example
 * ```ts
 * decodeStepResult('{"chargeId":"ch_1"}') // => { chargeId: 'ch_1' }
 * ```
 */
export function decodeStepResult(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}

/** Where a value stops being plain JSON, as a path from `the result`, or undefined if it is. */
function jsonProblem(value: unknown, path: string, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : `${path} is a non-finite number`;
  }
  if (typeof value !== 'object') return `${path} is a ${typeof value}`;
  if (seen.has(value)) return `${path} refers back to itself`;
  seen.add(value);
  try {
    if (Array.isArray(value)) return arrayProblem(value, path, seen);
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      return `${path} is a ${value.constructor?.name ?? 'non-plain object'}, not a plain object`;
    }
    for (const [name, member] of Object.entries(value)) {
      const problem =
        member === undefined
          ? `${path}.${name} is undefined (JSON drops it)`
          : jsonProblem(member, `${path}.${name}`, seen);
      if (problem !== undefined) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

function arrayProblem(
  values: readonly unknown[],
  path: string,
  seen: Set<object>,
): string | undefined {
  for (const [index, member] of values.entries()) {
    const problem =
      member === undefined
        ? `${path}[${index}] is undefined (JSON turns it into null)`
        : jsonProblem(member, `${path}[${index}]`, seen);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

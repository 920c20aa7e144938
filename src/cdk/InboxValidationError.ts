import type { IConstruct } from 'constructs';
import { InboxError } from '../errors/InboxError.js';

// The marks aws-cdk-lib's `Errors.isConstructError` and `Errors.isValidationError` look for: the
// CDK CLI then reports the error as a validation error of the construct it names.
const CONSTRUCT_ERROR = Symbol.for('@aws-cdk/core.SynthesisError');
const VALIDATION_ERROR = Symbol.for('@aws-cdk/core.ValidationError');

/**
 * A construct of `sqs-inbox/cdk` was given props it cannot deploy, thrown at synth. The message
 * starts with the construct's path and names the prop, the value and the fix; the stack starts
 * where your code created the construct. `Errors.isValidationError(error)` (aws-cdk-lib) holds.
 *
 * @example
 * ```ts
 * declare const props: InboxConsumerProps;
 * // ---cut---
 * try { new InboxConsumer(stack, 'Ledger', props); }
 * catch (error) { if (error instanceof InboxValidationError) console.error(error.constructPath); throw error; }
 * ```
 * @public
 */
export class InboxValidationError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'InboxValidationError';
  /**
   * The path of the construct whose props were refused (`Payments/Ledger`); undefined for a
   * value refused before it reached a construct (`MessageKey.field('')`).
   */
  readonly constructPath: string | undefined;
  /** What aws-cdk-lib's construct errors say they are. */
  readonly type = 'validation';

  constructor(scope: IConstruct | undefined, message: string, options?: { cause?: unknown }) {
    super(scope ? `${scope.node.path}: ${message}` : message, options);
    this.constructPath = scope?.node.path;
    Object.defineProperty(this, CONSTRUCT_ERROR, { value: true });
    Object.defineProperty(this, VALIDATION_ERROR, { value: true });
    // Frames from the construct's constructor inward are ours: start at the caller's.
    if (scope) Error.captureStackTrace?.(this, scope.constructor);
  }
}

/** Where an error records the names of its classes, so another copy of the library knows it. */
const CLASS_NAMES = Symbol.for('sqs-inbox.errorClassNames');

/**
 * Base class of every error this library throws or reports. Catch it to tell inbox errors
 * from your own; use the subclasses (`instanceof`) to tell them apart. `instanceof` also holds
 * across two copies of the library in one program (its ES module and CommonJS builds, say): a
 * `PermanentError` thrown with one copy's class is permanent for the other copy's processor.
 *
 * @remarks
 * The errors' `name`s are fixed strings, so they survive minifying bundlers. Their messages
 * name positions, lengths, types and paths, never a message's body or key. SDK errors the store
 * does not recognise (`AccessDeniedException`, `ResourceNotFoundException`) are not wrapped:
 * they pass through unchanged and are left to SQS's retries and the redrive policy, since a
 * deploy, not a retry, fixes them.
 *
 * @example
 * ```ts
 * declare const options: InboxOptions<typeof PaymentSchema>;
 * // ---cut---
 * try { await processSqsBatch(event, handler, options); }
 * catch (error) { if (error instanceof InboxError) logger.error(error.message); throw error; }
 * ```
 * @public
 */
export class InboxError extends Error {
  /**
   * The stable name of each library error class. Bundlers that minify rename classes, so
   * `name` comes from here for the library's own classes; a user subclass keeps its class name.
   */
  static readonly errorName: string = 'InboxError';

  /** `instanceof` by prototype, or by the class names an error of another copy recorded. */
  static override [Symbol.hasInstance]<T>(
    this: abstract new (
      ...args: never[]
    ) => T,
    value: unknown,
  ): value is T {
    // `this` is the class on the right of `instanceof` (a subclass too), not InboxError.
    // biome-ignore lint/complexity/noThisInStatic: the tested class is `this`, by design.
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const names = (value as { [CLASS_NAMES]?: unknown } | null | undefined)?.[CLASS_NAMES];
    // biome-ignore lint/complexity/noThisInStatic: the tested class is `this`, by design.
    return Array.isArray(names) && names.includes(classNameOf(this));
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = classNameOf(new.target);
    Object.defineProperty(this, CLASS_NAMES, { value: classNamesOf(new.target) });
  }
}

/** A class's stable name: its `errorName` for the library's classes, else its own name. */
function classNameOf(type: object): string {
  const { errorName, name } = type as { errorName?: string; name: string };
  return Object.hasOwn(type, 'errorName') && errorName ? errorName : name;
}

/** The stable names of a class and its ancestors up to (not including) `Error`. */
function classNamesOf(type: object): string[] {
  const names: string[] = [];
  for (let current = type; current !== Error && current !== Function.prototype; ) {
    names.push(classNameOf(current));
    current = Object.getPrototypeOf(current) as object;
  }
  return names;
}

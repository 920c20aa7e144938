/**
 * A deep copy of a transaction operation as lib-dynamodb reads it: plain objects, arrays,
 * sets, maps and binary values are copied; other objects (lib-dynamodb's `NumberValue`, class
 * instances) are kept as they are, since marshalling reads them as given. Cycles are kept as
 * cycles (marshalling refuses them, as it would have).
 *
 * @example
 * ```ts
 * const item = { sku: 'A-1', tags: new Set(['x']) };
 * const copy = copyOperand(item);
 * item.tags.add('y'); // copy.tags still holds only 'x'
 * ```
 */
export function copyOperand<T>(value: T): T {
  return copy(value, new Map()) as T;
}

function copy(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (ArrayBuffer.isView(value)) return copyBinary(value);
  if (value instanceof ArrayBuffer) return value.slice(0);
  if (Array.isArray(value))
    return remember(seen, value, [], (out: unknown[]) => {
      for (const element of value) out.push(copy(element, seen));
    });
  if (value instanceof Set)
    return remember(seen, value, new Set(), (out: Set<unknown>) => {
      for (const element of value) out.add(copy(element, seen));
    });
  if (value instanceof Map)
    return remember(seen, value, new Map(), (out: Map<unknown, unknown>) => {
      for (const [key, element] of value) out.set(key, copy(element, seen));
    });
  if (!isPlainObject(value)) return value;
  return remember(seen, value, {}, (out: Record<string, unknown>) => {
    // defineProperty, not assignment: an own `__proto__` key (JSON.parse makes them) stays a key.
    for (const [key, element] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: copy(element, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  });
}

function remember<T>(
  seen: Map<object, unknown>,
  original: object,
  out: T,
  fill: (out: T) => void,
): T {
  seen.set(original, out);
  fill(out);
  return out;
}

function copyBinary(view: ArrayBufferView): ArrayBufferView {
  if (Buffer.isBuffer(view)) return Buffer.from(view);
  const Constructor = view.constructor as new (buffer: ArrayBufferLike) => ArrayBufferView;
  return new Constructor(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

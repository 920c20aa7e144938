/**
 * DynamoDB's JSON protocol carries binary attribute values (`B`, `BS`) as base64 text; the model
 * holds them as bytes. These two walks convert a whole request or answer between the forms.
 * An object is taken for an attribute value when its only member is `B` with a string (or `BS`
 * with strings): no other shape of DynamoDB's requests or answers looks like that (item maps
 * hold attribute values, never strings).
 */

type Json = unknown;

/**
 * A request as read from the wire, with binary values as bytes.
 *
 * @example
 * ```ts
 * bytesFromWire({ Key: { id: { B: 'AQI=' } } }) // => { Key: { id: { B: Uint8Array [1, 2] } } }
 * ```
 */
export function bytesFromWire(value: Json): Json {
  if (Array.isArray(value)) return value.map(bytesFromWire);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [only] = entries;
  if (entries.length === 1 && only !== undefined) {
    const [name, member] = only;
    if (name === 'B' && typeof member === 'string') return { B: fromBase64(member) };
    if (name === 'BS' && Array.isArray(member) && member.every((m) => typeof m === 'string'))
      return { BS: member.map(fromBase64) };
  }
  return Object.fromEntries(entries.map(([name, member]) => [name, bytesFromWire(member)]));
}

/**
 * An answer for the wire, with bytes as base64 text.
 *
 * @example
 * ```ts
 * bytesToWire({ Item: { id: { B: new Uint8Array([1, 2]) } } }) // => { Item: { id: { B: 'AQI=' } } }
 * ```
 */
export function bytesToWire(value: Json): Json {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(bytesToWire);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [name, bytesToWire(member)]),
  );
}

function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

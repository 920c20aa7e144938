/**
 * Text SQS accepts as a message attribute value, at most `maxBytes` UTF-8 bytes: characters SQS
 * refuses (control characters other than tab, newline and carriage return; lone surrogates;
 * U+FFFE and U+FFFF) become U+FFFD, and the cut falls on a code point boundary, so an emoji is
 * never split into half a surrogate pair.
 *
 * @example
 * ```ts
 * attributeText('boom 💥'.repeat(300), 1024); // ≤ 1,024 bytes, valid Unicode
 * ```
 */
export function attributeText(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const character of text) {
    const allowed = isAllowed(character) ? character : '\uFFFD';
    const size = Buffer.byteLength(allowed);
    if (bytes + size > maxBytes) break;
    out += allowed;
    bytes += size;
  }
  return out;
}

/** SQS's allowed characters: #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF. */
function isAllowed(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  if (code === 0x9 || code === 0xa || code === 0xd) return true;
  if (code < 0x20) return false;
  if (code >= 0xd800 && code <= 0xdfff) return false; // a lone surrogate
  return code !== 0xfffe && code !== 0xffff;
}

import type { JSONOutput } from 'typedoc';

type Parts = readonly JSONOutput.CommentDisplayPart[];

/**
 * Markdown text made safe in a VitePress table cell or paragraph: `|` would end the cell and
 * `<` open an HTML element (VitePress compiles the page as a Vue template), newlines would end
 * the row. `{{` is left to the `::: v-pre` container every generated block sits in
 * ({@link vPre}): an entity would show as text inside a code span.
 *
 * @example
 * ```ts
 * escapeText('INBOX_KEY: attribute:<name> | field:<path>'); // 'INBOX_KEY: attribute:&lt;name> \| field:&lt;path>'
 * ```
 */
export function escapeText(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('<', '&lt;')
    .replaceAll('|', '\\|');
}

/**
 * A code span whose content is `code`, safe in a table cell (`|` escaped; markdown-it drops
 * the backslash inside a table).
 *
 * @example
 * ```ts
 * codeSpan("'before' | 'off'"); // "`'before' \\| 'off'`"
 * ```
 */
export function codeSpan(code: string): string {
  const flat = code.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');
  const fence = flat.includes('`') ? '``' : '`';
  return `${fence}${fence.length > 1 ? ' ' : ''}${flat}${fence.length > 1 ? ' ' : ''}${fence}`;
}

function partText(part: JSONOutput.CommentDisplayPart): string {
  switch (part.kind) {
    case 'text':
      return escapeText(part.text);
    case 'code':
      return codeSpan(part.text.replace(/^`+|`+$/g, ''));
    case 'inline-tag':
      // {@link X}: the API reference is generated apart; name the target, do not deep-link.
      return codeSpan(part.text);
    default:
      return escapeText(part.text);
  }
}

/**
 * TSDoc text (a summary, a block tag's content) as one line of markdown for a table cell.
 *
 * @example
 * ```ts
 * const summary = inlineMarkdown(member.comment?.summary ?? []);
 * ```
 */
export function inlineMarkdown(parts: Parts): string {
  return parts.map(partText).join('').trim();
}

/**
 * A block of generated markdown inside VitePress's `::: v-pre` container, so that `{{` in
 * TSDoc text or code is shown as written instead of read as a Vue interpolation.
 *
 * @example
 * ```ts
 * const block = vPre(['| a | b |', '| --- | --- |']);
 * ```
 */
export function vPre(lines: readonly string[]): string[] {
  return ['::: v-pre', ...lines, ':::'];
}

/**
 * A markdown table; cells are already escaped ({@link inlineMarkdown}, {@link codeSpan}).
 *
 * @example
 * ```ts
 * const lines = table(['option', 'type'], [['`consumer`', '`string`']]);
 * ```
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)];
}

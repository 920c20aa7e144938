import type { JSONOutput } from 'typedoc';
import { codeSpan, inlineMarkdown } from './markdownText.js';
import type { OptionSection } from './optionSections.js';
import { commentOf, type Declaration, inSourceOrder } from './typedocIndex.js';
import { memberTypeText, referencedNames } from './typeText.js';

/** A section's table rows, or what its TSDoc lacks for them, one line per member. */
export interface OptionRows {
  readonly rows: string[][];
  readonly problems: string[];
}

function defaultValueOf(member: Declaration): JSONOutput.CommentTag | undefined {
  return commentOf(member)?.blockTags?.find((tag) => tag.tag === '@defaultValue');
}

function problemsOf(member: Declaration, where: string, optional: boolean): string[] {
  const problems: string[] = [];
  if (!commentOf(member)?.summary.some((part) => part.text.trim() !== ''))
    problems.push(`${where} has no summary`);
  if (optional && defaultValueOf(member) === undefined)
    problems.push(`${where} is optional and has no @defaultValue`);
  return problems;
}

function linkedSection(member: Declaration, headings: ReadonlyMap<string, string>): string {
  for (const name of member.type ? referencedNames(member.type) : []) {
    const heading = headings.get(name);
    if (heading !== undefined) return ` See [${heading}](#${heading.toLowerCase()}).`;
  }
  return '';
}

/**
 * The rows of one configuration section (option, type, default, summary), from the members of
 * its interface as TypeDoc converted them (inherited ones included), in source order. A member
 * without a summary, or optional without a `@defaultValue`, is a problem, not a row with a gap.
 * `headings` maps an interface's name to the section that lists it, so a group links there.
 *
 * @example
 * ```ts
 * const { rows, problems } = optionRows(section, index.declaration('ReliabilitySettings', Kind.Interface), headings);
 * ```
 */
export function optionRows(
  section: OptionSection,
  declaration: Declaration,
  headings: ReadonlyMap<string, string>,
): OptionRows {
  const rows: string[][] = [];
  const problems: string[] = [];
  for (const member of inSourceOrder(declaration)) {
    const optional = section.partial === true || member.flags.isOptional === true;
    const where = `${section.heading}.${member.name} (${declaration.name})`;
    const found = problemsOf(member, where, optional);
    problems.push(...found);
    if (found.length > 0) continue;
    const beta = commentOf(member)?.modifierTags?.includes('@beta') ? ' (beta)' : '';
    const fallback = defaultValueOf(member);
    rows.push([
      `${codeSpan(member.name)}${beta}`,
      codeSpan(memberTypeText(member)),
      optional && fallback ? inlineMarkdown(fallback.content) : 'required',
      inlineMarkdown(commentOf(member)?.summary ?? []) + linkedSection(member, headings),
    ]);
  }
  return { rows, problems };
}

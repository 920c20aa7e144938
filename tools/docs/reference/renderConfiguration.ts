import { inlineMarkdown, table, vPre } from './markdownText.js';
import { optionRows } from './optionRows.js';
import type { OptionSection } from './optionSections.js';
import { Kind, type TypedocIndex } from './typedocIndex.js';

/** The line every generated page carries under its title: where its text comes from. */
export const GENERATED_NOTE =
  "This page is generated from the TSDoc in `src/` (`scripts/docsReference.ts` over TypeDoc's model): to change it, change the TSDoc.";

/**
 * reference/configuration.md: one `## <heading>` per section, each a table of option, type,
 * default and summary. Throws, listing every member at once, when a member has no summary or
 * is optional without a `@defaultValue`: the page never shows a gap.
 *
 * @example
 * ```ts
 * writeFileSync('docs/reference/configuration.md', renderConfiguration(index, OPTION_SECTIONS));
 * ```
 */
export function renderConfiguration(
  index: TypedocIndex,
  sections: readonly OptionSection[],
): string {
  const headings = new Map(sections.map((s) => [s.interfaces[0].name, s.heading]));
  const lines = [
    '# Configuration',
    '',
    'Every option of the processor, its store, the outbox relay and the CDK constructs: its type, its default and what it does. The options are validated when the processor (or construct) is created: an unknown key or a bad value throws `InvalidConfigurationError` (`InboxValidationError` for a construct) naming the option, the value and the fix. A group of options (`deadLetter`, `reliability`, …) has a section of its own.',
    '',
    GENERATED_NOTE,
  ];
  const problems: string[] = [];
  for (const section of sections) {
    const declaration = index.declaration(section.interfaces[0].name, Kind.Interface);
    const result = optionRows(section, declaration, headings);
    problems.push(...result.problems);
    const about = inlineMarkdown(declaration.comment?.summary ?? []);
    lines.push('', `## ${section.heading}`, '', `Given as ${section.givenAs}.`);
    if (about !== '') lines.push('', ...vPre([about]));
    lines.push('', ...vPre(table(['option', 'type', 'default', 'what it does'], result.rows)));
  }
  if (problems.length > 0)
    throw new Error(`the configuration page's TSDoc is incomplete:\n  ${problems.join('\n  ')}`);
  return `${lines.join('\n')}\n`;
}

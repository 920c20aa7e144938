import type { JSONOutput } from 'typedoc';
import { codeSpan, inlineMarkdown, table, vPre } from './markdownText.js';
import { GENERATED_NOTE } from './renderConfiguration.js';
import { constantMembers, type Declaration, Kind, type TypedocIndex } from './typedocIndex.js';

/** The CloudWatch units the library's metrics are written in. */
const METRIC_UNITS = ['Count', 'Milliseconds', 'Seconds'];

function literalValue(member: Declaration, constant: string): string {
  if (member.type?.type !== 'literal' || typeof member.type.value !== 'string')
    throw new Error(`${constant}.${member.name} is not a string literal in TypeDoc's JSON`);
  return member.type.value;
}

function summaryOf(
  member: Declaration,
  constant: string,
  problems: string[],
): JSONOutput.CommentDisplayPart[] {
  const summary = member.comment?.summary ?? [];
  if (!summary.some((part) => part.text.trim() !== ''))
    problems.push(`${constant}.${member.name} has no summary`);
  return summary;
}

function intro(constant: Declaration): string[] {
  const parts = [
    constant.comment?.summary ?? [],
    ...(constant.comment?.blockTags ?? [])
      .filter((t) => t.tag === '@remarks')
      .map((t) => t.content),
  ];
  return vPre(
    parts
      .map(inlineMarkdown)
      .filter((text) => text !== '')
      .flatMap((text, i) => (i === 0 ? [text] : ['', text])),
  );
}

function page(
  title: string,
  about: string,
  constant: Declaration,
  body: string[],
  problems: string[],
): string {
  if (problems.length > 0)
    throw new Error(`the ${title} page's TSDoc is incomplete:\n  ${problems.join('\n  ')}`);
  return `${[`# ${title}`, '', about, '', GENERATED_NOTE, '', ...intro(constant), '', ...vPre(body)].join('\n')}\n`;
}

/**
 * reference/environment.md: the variables of the `InboxEnvironment` contract (a `…Prefix`
 * member is a family: `INBOX_BUSINESS_TABLE_<name>`), each with its constant and its summary.
 *
 * @example
 * ```ts
 * writeFileSync('docs/reference/environment.md', renderEnvironment(index));
 * ```
 */
export function renderEnvironment(index: TypedocIndex): string {
  const constant = index.declaration('InboxEnvironment', Kind.Variable);
  const problems: string[] = [];
  const rows = constantMembers(constant).map((member) => {
    const value = literalValue(member, constant.name);
    const variable = member.name.endsWith('Prefix') ? `${value}<name>` : value;
    const summary = inlineMarkdown(summaryOf(member, constant.name, problems));
    return [codeSpan(variable), codeSpan(`${constant.name}.${member.name}`), summary];
  });
  const about =
    'The environment variables that connect the `InboxConsumer` construct (`sqs-inbox/cdk`), which sets them on the function, and `inboxConfigFromEnvironment()` (`sqs-inbox`), which reads them. Their names are exported as `InboxEnvironment` by `sqs-inbox/constants`.';
  return page(
    'Environment',
    about,
    constant,
    table(['variable', 'constant', 'what it carries'], rows),
    problems,
  );
}

/**
 * reference/metrics.md: each `InboxMetric` with its CloudWatch unit, which its summary opens
 * with as a code span (`` `Count`: records … ``), and what it counts.
 *
 * @example
 * ```ts
 * writeFileSync('docs/reference/metrics.md', renderMetrics(index));
 * ```
 */
export function renderMetrics(index: TypedocIndex): string {
  const constant = index.declaration('InboxMetric', Kind.Variable);
  const problems: string[] = [];
  const rows = constantMembers(constant).map((member) => {
    const [first, ...rest] = summaryOf(member, constant.name, problems);
    const unit = first?.kind === 'code' ? first.text.replaceAll('`', '') : '';
    if (!METRIC_UNITS.includes(unit))
      problems.push(
        `${constant.name}.${member.name}'s summary does not open with its unit (${METRIC_UNITS.map((u) => `\`${u}\``).join(', ')})`,
      );
    const meaning = inlineMarkdown(rest).replace(/^:\s*/, '');
    return [
      codeSpan(literalValue(member, constant.name)),
      unit,
      meaning,
      codeSpan(`${constant.name}.${member.name}`),
    ];
  });
  const about =
    'The metrics the processor and the outbox relay write, with their unit and what they count. Their names are exported as `InboxMetric` by `sqs-inbox/constants`.';
  return page(
    'Metrics',
    about,
    constant,
    table(['metric', 'unit', 'what it counts', 'constant'], rows),
    problems,
  );
}

import { codeSpan, inlineMarkdown, table, vPre } from './markdownText.js';
import { GENERATED_NOTE } from './renderConfiguration.js';
import { type Declaration, inSourceOrder, Kind, type TypedocIndex } from './typedocIndex.js';
import { typeText } from './typeText.js';

/** The base every error extends, and the base of those that are never retried. */
const BASE = 'InboxError';
const PERMANENT = 'PermanentError';

function extendsPermanent(error: Declaration, index: TypedocIndex): boolean {
  const parent = error.extendedTypes?.[0];
  if (parent?.type !== 'reference') return false;
  if (parent.name === PERMANENT) return true;
  return typeof parent.target === 'number' && extendsPermanent(index.byId(parent.target), index);
}

function kindOf(error: Declaration, index: TypedocIndex): string {
  if (error.name === BASE) return '**The base class**: every error the library raises extends it.';
  const parent = error.extendedTypes?.[0];
  const base = parent?.type === 'reference' ? ` extends ${codeSpan(parent.name)}` : '';
  if (error.name === PERMANENT || extendsPermanent(error, index))
    return `**Permanent**${base}: never retried; dead-lettered with its reason where there is a dead-letter queue, otherwise reported failed for the queue's redrive policy.`;
  return `**Not permanent**${base}: what happens to the message is in its summary.`;
}

function fieldsOf(error: Declaration): Declaration[] {
  return inSourceOrder(error).filter(
    (m) =>
      m.kind === Kind.Property &&
      !m.inheritedFrom &&
      !m.flags.isStatic &&
      !m.flags.isPrivate &&
      !m.flags.isProtected,
  );
}

function section(
  error: Declaration,
  index: TypedocIndex,
  problems: string[],
  root: ReadonlySet<number>,
): string[] {
  const summary = inlineMarkdown(error.comment?.summary ?? []);
  const remarks = (error.comment?.blockTags ?? []).filter((tag) => tag.tag === '@remarks');
  if (summary === '') problems.push(`${error.name} has no summary`);
  const fields = fieldsOf(error);
  for (const field of fields)
    if (inlineMarkdown(field.comment?.summary ?? []) === '')
      problems.push(`${error.name}.${field.name} has no summary`);
  const from = root.has(error.id) ? '`sqs-inbox/errors` and `sqs-inbox`' : '`sqs-inbox/errors`';
  const body = [`${kindOf(error, index)} Import it from ${from}.`, '', summary];
  for (const tag of remarks) body.push('', inlineMarkdown(tag.content));
  const rows = fields.map((m) => [
    codeSpan(m.name),
    codeSpan(m.type ? typeText(m.type) : 'unknown'),
    inlineMarkdown(m.comment?.summary ?? []),
  ]);
  if (rows.length > 0) body.push('', ...table(['field', 'type', 'what it holds'], rows));
  return ['', `## ${error.name}`, '', ...vPre(body)];
}

/**
 * reference/errors.md: one `## <ErrorClass>` per class `sqs-inbox/errors` exports, the base
 * first, then by name: permanent or not (whether it extends `PermanentError`), its summary and
 * the fields it carries. Throws, naming them, when a class or a field has no summary.
 *
 * @example
 * ```ts
 * writeFileSync('docs/reference/errors.md', renderErrors(index));
 * ```
 */
export function renderErrors(index: TypedocIndex): string {
  const errors = index
    .exportsOf('errors')
    .filter((d) => d.kind === Kind.Class)
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  const problems: string[] = [];
  const root = new Set(index.exportsOf('.').map((d) => d.id));
  const sections = errors.flatMap((error) => section(error, index, problems, root));
  if (problems.length > 0)
    throw new Error(`the errors page's TSDoc is incomplete:\n  ${problems.join('\n  ')}`);
  const about =
    'Every error the library raises extends `InboxError`: test them with `instanceof` (their `name`s are fixed strings, so they survive minifying bundlers). Import them from `sqs-inbox/errors`; those a handler throws or catches also come from `sqs-inbox`. A subclass of `PermanentError` is never retried.';
  return `${['# Errors', '', about, '', GENERATED_NOTE, ...sections].join('\n')}\n`;
}

function rank(error: Declaration): number {
  return error.name === BASE ? 0 : error.name === PERMANENT ? 1 : 2;
}

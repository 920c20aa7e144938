import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { OptionSection } from './optionSections.js';

function parsed(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    readFileSync(join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
}

function docsOf(node: ts.Node): ts.JSDoc[] {
  return ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
}

function summaryOf(node: ts.Node): string {
  return docsOf(node)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
    .join('')
    .trim();
}

function hasTag(node: ts.Node, name: string): boolean {
  return docsOf(node).some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === name));
}

function interfaceIn(source: ts.SourceFile, name: string): ts.InterfaceDeclaration {
  const found = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
  if (found === undefined) throw new Error(`${source.fileName} declares no interface ${name}`);
  return found;
}

/**
 * What the TSDoc of a configuration section's options lacks, read from the source (a parse,
 * no type check: milliseconds, where TypeDoc takes half a minute): a member without a summary,
 * or optional (or given through `Partial`) without a `@defaultValue`, one line each, named.
 *
 * @example
 * ```ts
 * const problems = OPTION_SECTIONS.flatMap((section) => optionDocProblems(projectRoot, section));
 * ```
 */
export function optionDocProblems(root: string, section: OptionSection): string[] {
  return section.interfaces.flatMap(({ name, file }) =>
    interfaceIn(parsed(root, file), name).members.flatMap((member) => {
      const where = `${name}.${member.name?.getText() ?? '?'} (${file})`;
      const optional = section.partial === true || member.questionToken !== undefined;
      const problems: string[] = [];
      if (summaryOf(member) === '') problems.push(`${where} has no summary`);
      if (optional && !hasTag(member, 'defaultValue'))
        problems.push(`${where} is optional and has no @defaultValue`);
      return problems;
    }),
  );
}

/**
 * The members of an exported object-literal constant (`export const X = { … } as const`) and
 * their TSDoc summaries, read from the source.
 *
 * @example
 * ```ts
 * const metrics = constantSummaries(projectRoot, 'src/constants/values.ts', 'InboxMetric');
 * ```
 */
export function constantSummaries(root: string, file: string, name: string): Map<string, string> {
  const source = parsed(root, file);
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.name.getText() !== name || declaration.initializer === undefined) continue;
      const literal = ts.isAsExpression(declaration.initializer)
        ? declaration.initializer.expression
        : declaration.initializer;
      if (!ts.isObjectLiteralExpression(literal)) break;
      return new Map(literal.properties.map((p) => [p.name?.getText() ?? '?', summaryOf(p)]));
    }
  }
  throw new Error(`${file} declares no object-literal constant ${name}`);
}

import ts from 'typescript';
import { CUT_LINE, cutIndex } from './cutPrelude.js';

function isDeclared(statement: ts.Statement): boolean {
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  return modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword);
}

function isTypeImport(statement: ts.Statement): boolean {
  if (!ts.isImportDeclaration(statement)) return false;
  const clause = statement.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** What a prelude may hold: nothing a reader must write — `declare`s, types, type imports. */
function isHiddenSafely(statement: ts.Statement): boolean {
  return (
    isDeclared(statement) ||
    isTypeImport(statement) ||
    ts.isInterfaceDeclaration(statement) ||
    ts.isTypeAliasDeclaration(statement)
  );
}

function boundNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) =>
      ts.isIdentifier(d.name) ? [d.name.text] : [],
    );
  }
  const name = (statement as { name?: ts.Node }).name;
  return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
}

/**
 * What is wrong with an example's prelude (its lines above {@link CUT_LINE}, which the site does
 * not show), each with its 0-based line in the example: a statement a reader must write (a
 * value import, code) hidden there, a name of the examples' context given another meaning, or
 * nothing left to show after the cut.
 *
 * @example
 * ```ts
 * preludeProblems("import { App } from 'aws-cdk-lib';\n// ---cut---\nnew App();", new Set())
 * // => [{ line: 0, message: "the prelude hides `import { App } from 'aws-cdk-lib';`, which a reader must write: …" }]
 * ```
 */
export function preludeProblems(
  code: string,
  contextNames: ReadonlySet<string>,
): { line: number; message: string }[] {
  const lines = code.split('\n');
  const cut = cutIndex(lines);
  if (cut === -1) return [];
  const empty = lines.slice(cut + 1).every((line) => line.trim() === '')
    ? [
        {
          line: cut,
          message: `nothing follows the \`${CUT_LINE}\` line: the site would show an empty example`,
        },
      ]
    : [];
  const prelude = lines.slice(0, cut).join('\n');
  const source = ts.createSourceFile('prelude.mts', prelude, ts.ScriptTarget.Latest, true);
  return [...statementProblems(source, contextNames), ...empty];
}

function statementProblems(source: ts.SourceFile, contextNames: ReadonlySet<string>) {
  return source.statements.flatMap((statement) => {
    const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line;
    const text = statement.getText(source).split('\n')[0] ?? '';
    const problems = isHiddenSafely(statement)
      ? []
      : [
          {
            line,
            message: `the prelude hides \`${text}\`, which a reader must write: show it below the \`${CUT_LINE}\` line (a prelude holds only \`declare\`s, types and \`import type\`)`,
          },
        ];
    for (const name of boundNames(statement).filter((bound) => contextNames.has(bound))) {
      problems.push({
        line,
        message: `the prelude redeclares \`${name}\`, which the examples' context (tools/docs/exampleContext.ts) gives one meaning: name it otherwise`,
      });
    }
    return problems;
  });
}

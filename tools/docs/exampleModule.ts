import ts from 'typescript';

/** A module an example may use without importing it: its specifier and its exports. */
export interface ScopeModule {
  /** The specifier the example's module imports it by (`sqs-inbox/cdk`, `../exampleContext.js`). */
  readonly specifier: string;
  /** Each export's name, and whether it is a value (else a type, imported with `type`). */
  readonly names: ReadonlyMap<string, boolean>;
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) =>
    ts.isOmittedExpression(element) ? [] : bindingNames(element.name),
  );
}

function importedNames(statement: ts.ImportDeclaration): string[] {
  const clause = statement.importClause;
  if (clause === undefined) return [];
  const bindings = clause.namedBindings;
  const named =
    bindings === undefined
      ? []
      : ts.isNamespaceImport(bindings)
        ? [bindings.name.text]
        : bindings.elements.map((element) => element.name.text);
  return clause.name === undefined ? named : [clause.name.text, ...named];
}

/**
 * The names an example binds at its top level — imports, variables (destructured too),
 * functions, classes, interfaces, types, enums, namespaces: none of these is imported for it.
 *
 * @example
 * ```ts
 * declaredNames("import { a } from 'x';\nconst { b, c: [d] } = e;\ntype F = 1;")
 * // => Set { 'a', 'b', 'd', 'F' }
 * ```
 */
export function declaredNames(code: string): Set<string> {
  const source = ts.createSourceFile('example.mts', code, ts.ScriptTarget.Latest, false);
  const names = source.statements.flatMap((statement) => {
    if (ts.isImportDeclaration(statement)) return importedNames(statement);
    if (ts.isVariableStatement(statement)) {
      return statement.declarationList.declarations.flatMap((d) => bindingNames(d.name));
    }
    const name = (statement as { name?: ts.Node }).name;
    return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
  });
  return new Set(names);
}

/**
 * An example as a module that compiles on its own: its code, line for line (a compiler error's
 * line is the example's), then an import of every name of `scope` it does not bind itself —
 * the first module's, then the next one's names not taken yet — types with `type`.
 *
 * @example
 * ```ts
 * exampleModule('const p = createBatchProcessor(handler, options);', [
 *   { specifier: 'sqs-inbox', names: new Map([['createBatchProcessor', true], ['InboxStore', false]]) },
 * ]);
 * // => "const p = createBatchProcessor(handler, options);\nimport { createBatchProcessor, type InboxStore } from 'sqs-inbox';\n"
 * ```
 */
export function exampleModule(code: string, scope: readonly ScopeModule[]): string {
  const taken = declaredNames(code);
  const imports = scope.flatMap(({ specifier, names }) => {
    const free = [...names].filter(([name]) => !taken.has(name));
    for (const [name] of free) taken.add(name);
    if (free.length === 0) return [];
    const list = free.map(([name, isValue]) => (isValue ? name : `type ${name}`)).join(', ');
    return [`import { ${list} } from '${specifier}';`];
  });
  return `${code}\n${imports.join('\n')}\n`;
}

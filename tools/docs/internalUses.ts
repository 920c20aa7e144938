import ts from 'typescript';

function isInternal(checker: ts.TypeChecker, symbol: ts.Symbol | undefined): boolean {
  if (symbol === undefined) return false;
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return (target.declarations ?? []).some((declaration) =>
    ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal'),
  );
}

/**
 * The places where a file uses something marked `@internal`: the docs compile against the
 * sources, where it is there to see, but the published types leave it out (`stripInternal`),
 * so a reader who copies the code gets an error. Each with its 1-based line.
 *
 * @example
 * ```ts
 * internalUses(program, program.getSourceFile(snippetFile)!)
 * // => [{ line: 2, name: 'find' }] for `await store.find(pk);`
 * ```
 */
export function internalUses(
  program: ts.Program,
  source: ts.SourceFile,
): { line: number; name: string }[] {
  const checker = program.getTypeChecker();
  const uses: { line: number; name: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && isInternal(checker, checker.getSymbolAtLocation(node))) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      uses.push({ line: line + 1, name: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

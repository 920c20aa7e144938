/**
 * The exported names an API report marks undocumented: a top-level `// @public (undocumented)`
 * (or `@beta`) line before an `export` (members are indented, so they are not counted).
 *
 * @example
 * ```ts
 * undocumentedNames('// @public (undocumented)\nexport const x = 1;\n'); // => ['x']
 * ```
 */
export function undocumentedNames(report: string): string[] {
  const lines = report.split(/\r?\n/);
  return lines.flatMap((line, at) => {
    if (!/^\/\/ @(public|beta) \(undocumented\)$/.test(line)) return [];
    const declaration = lines[at + 1] ?? '';
    return [/^export (?:declare )?(?:abstract )?\w+ (\w+)/.exec(declaration)?.[1] ?? declaration];
  });
}

/**
 * The types public signatures use that no entry point exports: api-extractor's forgotten
 * exports of every entry's report, less the names some report exports (a type another entry
 * exports is reachable).
 *
 * @example
 * ```ts
 * unexportedTypes([rootReport, typesReport]); // => ['Level is used by a public declaration but no entry point exports it']
 * ```
 */
export function unexportedTypes(reports: readonly string[]): string[] {
  const exported = new Set(
    reports.flatMap((text) =>
      [...text.matchAll(/^export (?:declare )?(?:abstract )?\w+ (\w+)/gm)].map((m) => m[1]),
    ),
  );
  const forgotten = reports.flatMap((text) =>
    [...text.matchAll(/\(ae-forgotten-export\) The symbol "(\w+)"/g)].map((m) => m[1] ?? ''),
  );
  return [...new Set(forgotten)]
    .filter((name) => !exported.has(name))
    .map((name) => `${name} is used by a public declaration but no entry point exports it`);
}

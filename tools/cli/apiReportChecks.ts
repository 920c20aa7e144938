const EXPORT = /^export (?:declare )?(?:abstract )?\w+ (\w+)/;
const MEMBER = /^\s+(?:(?:readonly|static|abstract|protected|get|set)\s+)*(\[[^\]]+\]|[\w$]+)/;

/**
 * The names an API report marks undocumented: an exported name after a top-level
 * `// @public (undocumented)` (or `@beta`) line, and a member, as `Owner.member`, after an
 * indented `// (undocumented)` (with the member's own release tag, if it has one).
 *
 * @example
 * ```ts
 * undocumentedNames('// @public (undocumented)\nexport const x = 1;\n'); // => ['x']
 * undocumentedNames('// @public\nexport interface A {\n    // (undocumented)\n    readonly b: string;\n}'); // => ['A.b']
 * ```
 */
export function undocumentedNames(report: string): string[] {
  const lines = report.split(/\r?\n/);
  let owner = '';
  return lines.flatMap((line, at) => {
    const declaration = lines[at + 1] ?? '';
    owner = EXPORT.exec(line)?.[1] ?? owner;
    if (/^\/\/ @(public|beta) \(undocumented\)$/.test(line)) {
      return [EXPORT.exec(declaration)?.[1] ?? declaration];
    }
    if (!/^\s+\/\/ (?:@\w+ )?\(undocumented\)$/.test(line)) return [];
    return [`${owner}.${MEMBER.exec(declaration)?.[1] ?? declaration.trim()}`];
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
    reports.flatMap((text) => [...text.matchAll(new RegExp(EXPORT, 'gm'))].map((m) => m[1])),
  );
  const forgotten = reports.flatMap((text) =>
    [...text.matchAll(/\(ae-forgotten-export\) The symbol "(\w+)"/g)].map((m) => m[1] ?? ''),
  );
  return [...new Set(forgotten)]
    .filter((name) => !exported.has(name))
    .map((name) => `${name} is used by a public declaration but no entry point exports it`);
}

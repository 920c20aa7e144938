import ts from 'typescript';
import { internalUses } from './internalUses.js';

/** A compiler error in one of the compiled files, at a 1-based line of that file. */
export interface CompileError {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/**
 * The compiler options of a tsconfig file, with `noEmit`.
 *
 * @example
 * ```ts
 * compilerOptions(join(projectRoot, 'tsconfig.json')).strict // => true
 * ```
 */
export function compilerOptions(tsconfigPath: string): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${tsconfigPath}`);
  return { ...parsed.options, noEmit: true };
}

/**
 * A compiler host that parses each file once for all the programs it serves — the package's
 * sources and the declarations of its dependencies (aws-cdk-lib's are most of the time) — but
 * reads the files under `.cache/` afresh: the modules written for each run.
 *
 * @example
 * ```ts
 * const host = sharingHost(compilerOptions(tsconfig));
 * const first = ts.createProgram({ rootNames: entries, options, host });
 * compileModules(tsconfig, snippetFiles, host); // parses no entry again
 * ```
 */
export function sharingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parsed = new Map<string, ts.SourceFile>();
  const getSourceFile: ts.CompilerHost['getSourceFile'] = (fileName, version, ...rest) => {
    const key = `${typeof version === 'object' ? version.languageVersion : version}:${fileName}`;
    const cached = parsed.get(key);
    if (cached !== undefined) return cached;
    const source = host.getSourceFile(fileName, version, ...rest);
    if (source !== undefined && !fileName.includes('/.cache/')) parsed.set(key, source);
    return source;
  };
  return { ...host, getSourceFile };
}

function toError(diagnostic: ts.Diagnostic): CompileError {
  const message = `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  if (diagnostic.file === undefined || diagnostic.start === undefined) {
    return { file: '', line: 0, message };
  }
  const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return { file: diagnostic.file.fileName, line: line + 1, message };
}

/**
 * Compiles `files` in one program with the options of `tsconfigPath` (its `paths` too, so
 * `sqs-inbox/cdk` resolves to the source) and returns the errors in those files: the
 * modules they import are compiled as far as the files use them, and their own errors are not
 * reported, and a use of anything `@internal` ({@link internalUses}) is an error too. An error
 * that belongs to no file (a bad option) has `file: ''`. A `host` from
 * {@link sharingHost} lends the files an earlier program parsed.
 *
 * @example
 * ```ts
 * compileModules(join(projectRoot, 'tsconfig.json'), ['/repo/.cache/docs-snippets/a.ts'])
 * // => [{ file: '/repo/.cache/docs-snippets/a.ts', line: 3, message: "TS2322: Type 'string' …" }]
 * ```
 */
export function compileModules(
  tsconfigPath: string,
  files: readonly string[],
  host?: ts.CompilerHost,
): CompileError[] {
  const options = compilerOptions(tsconfigPath);
  const program = ts.createProgram({ rootNames: files, options, ...(host && { host }) });
  const sources = files.flatMap((file) => program.getSourceFile(file) ?? []);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...sources.flatMap((source) => [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]),
  ];
  const internal = sources.flatMap((source) =>
    internalUses(program, source).map(({ line, name }) => ({
      file: source.fileName,
      line,
      message: `uses \`${name}\`, which is @internal: the published types leave it out, so a reader's copy would not compile`,
    })),
  );
  return [
    ...diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).map(toError),
    ...internal,
  ];
}

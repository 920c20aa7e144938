import ts from 'typescript';

/** A compiler error in one of the compiled files, at a 1-based line of that file. */
export interface CompileError {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

function compilerOptions(tsconfigPath: string): ts.CompilerOptions {
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
 * reported. An error that belongs to no file (a bad option) has `file: ''`.
 *
 * @example
 * ```ts
 * compileModules(join(projectRoot, 'tsconfig.json'), ['/repo/.cache/docs-snippets/a.ts'])
 * // => [{ file: '/repo/.cache/docs-snippets/a.ts', line: 3, message: "TS2322: Type 'string' …" }]
 * ```
 */
export function compileModules(tsconfigPath: string, files: readonly string[]): CompileError[] {
  const program = ts.createProgram(files, compilerOptions(tsconfigPath));
  const sources = files.flatMap((file) => program.getSourceFile(file) ?? []);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...sources.flatMap((source) => [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]),
  ];
  return diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).map(toError);
}

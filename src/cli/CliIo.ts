/**
 * Where a command writes: documents and lines to `stdout`, progress and warnings to `stderr`.
 *
 * @example
 * ```ts
 * const io: CliIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), env: process.env };
 * ```
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory (`--local` reads its run file under it). */
  readonly cwd: string;
  /** Aborted on SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
}

/**
 * How a command prints: `--json` one document, `--jsonl` one line per message then the
 * summary, otherwise text for a person.
 *
 * @example
 * ```ts
 * const out = output(io, { json: true });
 * out.document({ status: 'COMPLETED' }, () => 'COMPLETED');
 * ```
 */
export function output(io: CliIo, format: { json?: boolean; jsonl?: boolean }) {
  return {
    format: format.jsonl ? 'jsonl' : format.json ? 'json' : 'text',
    /** A line per message: with `--jsonl` its JSON, in text mode its text, none with `--json`. */
    item(value: unknown, text: () => string): void {
      if (format.jsonl) io.stdout(`${JSON.stringify(value)}\n`);
      else if (!format.json) io.stdout(`${text()}\n`);
    },
    /** The command's result: one JSON document (its last line with `--jsonl`), or its text. */
    document(value: unknown, text: () => string): void {
      if (format.json) io.stdout(`${JSON.stringify(value, null, 2)}\n`);
      else if (format.jsonl) io.stdout(`${JSON.stringify(value)}\n`);
      else io.stdout(`${text()}\n`);
    },
    warn(text: string): void {
      io.stderr(`${text}\n`);
    },
  };
}
/** What {@link output} returns. */
export type Output = ReturnType<typeof output>;

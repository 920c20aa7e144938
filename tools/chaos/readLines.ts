import type { Readable } from 'node:stream';

/**
 * Calls `onLine` with each non-empty line a stream carries (a worker's crash channel), as lines
 * complete across chunks.
 *
 * @example
 * ```ts
 * readLines(child.stdio[4] as Readable, (line) => onReport(JSON.parse(line)));
 * ```
 */
export function readLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  });
}

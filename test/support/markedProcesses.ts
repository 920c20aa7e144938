import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes whose environment holds `SQS_INBOX_TEST_MARK=<mark>`, with their command lines:
 * every descendant of a command started with that variable, wherever it was re-parented (Linux
 * `/proc`; what `ps e` shows). A process that has exited is not listed.
 */
export function markedProcesses(mark: string): string[] {
  const needle = `SQS_INBOX_TEST_MARK=${mark}\u0000`;
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\u0000', ' ');
      const state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
      if (state !== 'Z') found.push(`${pid} ${command.trim()}`);
    } catch {
      // Gone between the listing and the read, or not ours to read.
    }
  }
  return found;
}

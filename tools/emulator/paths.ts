import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** An emulator the harness started (or was given), and how to stop it. */
export interface RunningEmulator {
  readonly name: string;
  readonly endpoint: string;
  stop(): Promise<void>;
}

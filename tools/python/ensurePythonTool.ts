import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from '../emulator/paths.js';
import { execFileAsync, requireProgram } from '../emulator/processes.js';

/** A command-line tool published on PyPI, pinned, and the program it installs. */
export interface PythonTool {
  /** The PyPI project, e.g. `ministack`. */
  readonly name: string;
  /** The exact version installed. */
  readonly version: string;
  /** The program the project installs into the environment's `bin/`. */
  readonly program: string;
  /** What the tool is for, in the error a machine without Python gets. */
  readonly purpose: string;
}

const LOCK_STALE_MILLIS = 10 * 60_000;
const installs = new Map<string, Promise<string>>();

/**
 * Installs a pinned PyPI tool into a project-local virtual environment
 * (`.cache/<name>-<version>/`), once, and resolves to its program's path. A lock folder keeps two
 * processes from installing at the same time; the marker file is written last, so an interrupted
 * install is redone.
 *
 * @example
 * ```ts
 * const ministack = await ensurePythonTool({ name: 'ministack', version: '1.5.33', program: 'ministack', purpose: 'the emulator' });
 * ```
 */
export function ensurePythonTool(tool: PythonTool): Promise<string> {
  const key = `${tool.name}==${tool.version}`;
  let install = installs.get(key);
  if (install === undefined) {
    install = installTool(tool);
    installs.set(key, install);
  }
  return install;
}

async function installTool(tool: PythonTool): Promise<string> {
  const venvDir = join(projectRoot, '.cache', `${tool.name}-${tool.version}`);
  const executable = join(venvDir, 'bin', tool.program);
  const installedMarker = join(venvDir, '.installed');
  if (existsSync(installedMarker)) return executable;
  await withLock(`${venvDir}.lock`, async () => {
    if (existsSync(installedMarker)) return;
    rmSync(venvDir, { recursive: true, force: true });
    const python = process.env.PYTHON ?? 'python3';
    requireProgram(
      python,
      ['-c', 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))'],
      `Python 3.10 or later with venv to install ${tool.purpose} (Debian: apt-get install python3 python3-venv), or set PYTHON to one`,
    );
    console.error(`[harness] installing ${tool.name}==${tool.version} into ${venvDir}`);
    await execFileAsync(python, ['-m', 'venv', venvDir]);
    await execFileAsync(
      join(venvDir, 'bin', 'python'),
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        `${tool.name}==${tool.version}`,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    writeFileSync(installedMarker, `${tool.version}\n`);
  });
  return executable;
}

async function withLock(lockDir: string, work: () => Promise<void>): Promise<void> {
  mkdirSync(dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // The holder may remove the lock between the failed mkdir and this stat: try again.
      const heldSinceMillis = statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs;
      if (heldSinceMillis !== undefined && Date.now() - heldSinceMillis > LOCK_STALE_MILLIS)
        rmSync(lockDir, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

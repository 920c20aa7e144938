import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot, type RunningEmulator } from './paths.js';
import {
  execFileAsync,
  freePort,
  killOnExit,
  requireProgram,
  stopProcess,
  waitUntil,
} from './processes.js';

/**
 * The MiniStack release the harness installs. Checked on this version: DynamoDB transactions
 * with cancellation reasons and ALL_OLD items, SQS standard and FIFO, redrive policies.
 */
export const MINISTACK_VERSION = '1.5.33';

const venvDir = join(projectRoot, '.cache', `ministack-${MINISTACK_VERSION}`);
const executable = join(venvDir, 'bin', 'ministack');
const installedMarker = join(venvDir, '.installed');
const LOCK_STALE_MILLIS = 10 * 60_000;

const installs = globalThis as { sqsInboxMiniStackInstall?: Promise<string> };

/**
 * Installs the pinned MiniStack into a project-local virtual environment (`.cache/`), once.
 * A lock folder keeps two test projects from installing at the same time; the marker file is
 * written last, so an interrupted install is redone.
 */
export function ensureMiniStack(): Promise<string> {
  installs.sqsInboxMiniStackInstall ??= install();
  return installs.sqsInboxMiniStackInstall;
}

async function install(): Promise<string> {
  if (existsSync(installedMarker)) return executable;
  await withLock(`${venvDir}.lock`, async () => {
    if (existsSync(installedMarker)) return;
    rmSync(venvDir, { recursive: true, force: true });
    const python = process.env.PYTHON ?? 'python3';
    requireProgram(
      python,
      ['-c', 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))'],
      'Python 3.10 or later with venv to install the MiniStack emulator (Debian: apt-get install python3 python3-venv), set PYTHON to one, or set AWS_ENDPOINT_URL to a running emulator',
    );
    console.error(`[harness] installing ministack==${MINISTACK_VERSION} into ${venvDir}`);
    await execFileAsync(python, ['-m', 'venv', venvDir]);
    await execFileAsync(
      join(venvDir, 'bin', 'python'),
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        `ministack==${MINISTACK_VERSION}`,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    writeFileSync(installedMarker, `${MINISTACK_VERSION}\n`);
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
      if (Date.now() - statSync(lockDir).mtimeMs > LOCK_STALE_MILLIS)
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

/** Starts MiniStack on a free loopback port with the given services and waits until healthy. */
export async function startMiniStack(services: readonly string[]): Promise<RunningEmulator> {
  const command = await ensureMiniStack();
  const port = await freePort();
  const logDir = join(projectRoot, '.cache', 'logs');
  mkdirSync(logDir, { recursive: true });
  const log = openSync(join(logDir, `ministack-${port}.log`), 'w');
  const child = spawn(command, [], {
    env: {
      ...process.env,
      GATEWAY_PORT: String(port),
      BIND_HOST: '127.0.0.1',
      MINISTACK_HOST: '127.0.0.1',
      SERVICES: services.join(','),
      MINISTACK_REGION: 'us-east-1',
      LOG_LEVEL: 'WARNING',
    },
    stdio: ['ignore', log, log],
  });
  killOnExit(child);
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntil(
    'MiniStack',
    async () => (await fetch(`${endpoint}/_ministack/health`)).ok,
    60_000,
    child,
  );
  return { name: `MiniStack ${MINISTACK_VERSION}`, endpoint, stop: () => stopProcess(child) };
}

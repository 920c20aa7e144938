import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePythonTool } from '../python/ensurePythonTool.js';
import { projectRoot, type RunningEmulator } from './paths.js';
import { freePort, killOnExit, stopProcess, waitUntil } from './processes.js';

/**
 * The MiniStack release the harness installs. Checked on this version: DynamoDB transactions
 * with cancellation reasons and ALL_OLD items, SQS standard and FIFO, redrive policies.
 */
export const MINISTACK_VERSION = '1.5.33';

/**
 * Installs the pinned MiniStack into a project-local virtual environment (`.cache/`), once.
 */
export function ensureMiniStack(): Promise<string> {
  return ensurePythonTool({
    name: 'ministack',
    version: MINISTACK_VERSION,
    program: 'ministack',
    purpose: 'the MiniStack emulator (or set AWS_ENDPOINT_URL to a running emulator)',
  });
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

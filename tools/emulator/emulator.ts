import { onShutdown } from '../cli/shutdown.js';
import { dockerSocketPresent, startLocalStack } from './localstack.js';
import { startMiniStack } from './ministack.js';
import type { RunningEmulator } from './paths.js';

export type { RunningEmulator } from './paths.js';

/**
 * Picks and starts the local AWS backend: `AWS_ENDPOINT_URL` when set (nothing is started);
 * else LocalStack in Docker when a Docker engine answers; else MiniStack on the host.
 * `SQS_INBOX_EMULATOR=ministack` skips the Docker probe. A command-line entry stops it when it
 * stops (`tools/cli/shutdown.ts`); the test harness stops it itself.
 */
export async function startEmulator(services: readonly string[]): Promise<RunningEmulator> {
  const emulator = await pickEmulator(services);
  onShutdown(() => emulator.stop());
  return emulator;
}

async function pickEmulator(services: readonly string[]): Promise<RunningEmulator> {
  const given = process.env.AWS_ENDPOINT_URL;
  if (given) return { name: `AWS_ENDPOINT_URL (${given})`, endpoint: given, stop: async () => {} };
  if (process.env.SQS_INBOX_EMULATOR !== 'ministack' && dockerSocketPresent()) {
    const localstack = await startLocalStack(services);
    if (localstack) return localstack;
  }
  return startMiniStack(services);
}

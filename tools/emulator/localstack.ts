import { existsSync } from 'node:fs';
import type { RunningEmulator } from './paths.js';

/** The last LocalStack image that starts without an auth token; override with LOCALSTACK_IMAGE. */
export const LOCALSTACK_IMAGE = 'localstack/localstack:4.14.0';

/** Whether a Docker engine seems reachable: a DOCKER_HOST, or the default socket. */
export function dockerSocketPresent(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

/**
 * Starts LocalStack in Docker through Testcontainers. Returns undefined when no container
 * runtime answers, so the caller can fall back to MiniStack.
 */
export async function startLocalStack(
  services: readonly string[],
): Promise<RunningEmulator | undefined> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return undefined;
  }
  const { LocalstackContainer } = await import('@testcontainers/localstack');
  const image = process.env.LOCALSTACK_IMAGE ?? LOCALSTACK_IMAGE;
  const environment: Record<string, string> = { SERVICES: services.join(',') };
  if (process.env.LOCALSTACK_AUTH_TOKEN)
    environment.LOCALSTACK_AUTH_TOKEN = process.env.LOCALSTACK_AUTH_TOKEN;
  const container = await new LocalstackContainer(image).withEnvironment(environment).start();
  return {
    name: `LocalStack (${image})`,
    endpoint: container.getConnectionUri(),
    stop: async () => {
      await container.stop();
    },
  };
}

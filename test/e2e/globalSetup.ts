import type { TestProject } from 'vitest/node';
import { startEmulator } from '../../tools/emulator/emulator.js';
import { DEPLOY_SERVICES, deployToEmulator } from '../../tools/verify/deployStack.js';

/** What the end-to-end tests get: the emulator's endpoint and the deployed stack's outputs. */
export interface DeployedStack {
  readonly endpoint: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly repairs: readonly string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    deployed: DeployedStack;
  }
}

/**
 * The consumers' settings for the run: a 5 s function timeout (30 s visibility) so a failing
 * message reaches the DLQ after two receives in about a minute, with room for a cold start.
 */
export const E2E_CONTEXT = {
  functionTimeoutSeconds: '5',
  maxReceiveCount: '2',
  removalPolicy: 'destroy',
} as const;

/** Starts an emulator, deploys the reference stack with `cdklocal` once, and stops it at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulator = await startEmulator(DEPLOY_SERVICES);
  try {
    const deployment = await deployToEmulator(emulator.endpoint, {
      context: E2E_CONTEXT,
      log: (line) => console.error(line),
    });
    project.provide('deployed', deployment);
  } catch (error) {
    await emulator.stop();
    throw error;
  }
  return () => emulator.stop();
}

import type { TestProject } from 'vitest/node';
import { startEmulator } from '../../tools/emulator/emulator.js';
import { DEPLOY_SERVICES } from '../../tools/verify/deployStack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of an emulator that serves what a deployment needs, with nothing deployed. */
    emulatorEndpoint: string;
  }
}

/**
 * Starts an emulator with CloudFormation and Lambda for the `consumer` project, which deploys
 * its own apps, and stops it at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulator = await startEmulator(DEPLOY_SERVICES);
  project.provide('emulatorEndpoint', emulator.endpoint);
  return () => emulator.stop();
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  packLibrary,
  TARBALL_VARIABLE,
  tarballFromEnvironment,
} from '../support/consumerProject.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The path of this repository's packed tarball (`npm pack`, which builds it). */
    tarball: string;
  }
}

/**
 * Packs the library once for the `consumer` project, whose files each install it into a fresh
 * project of their own (two packs at once would build into the same `dist`), and removes the
 * tarball at the end. With {@link TARBALL_VARIABLE} set (`.ci/run` packs once for its three
 * consumer tiers and the deep tier) that tarball is installed instead, and left in place.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const given = tarballFromEnvironment();
  if (given !== undefined) {
    project.provide('tarball', given);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sqs-inbox-pack-'));
  project.provide('tarball', await packLibrary(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}

import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { ENTRY_POINTS } from './tools/sdk/entryPoints.js';

const integration = {
  include: ['test/integration/**/*.test.ts'],
  globalSetup: ['test/harness/globalSetup.ts'],
  // Above `eventually`'s 90 s, so a wait that never ends fails with its own message.
  testTimeout: 120_000,
  hookTimeout: 180_000,
};

export default defineConfig({
  // .cts too (Vite's default leaves it out): src/cdk/moduleDirectory.cts is CommonJS in TypeScript.
  oxc: { include: /\.([cm]?ts|[jt]sx)$/ },
  // Reference functions import the library by its package name, as a user would.
  resolve: {
    alias: Object.entries(ENTRY_POINTS).map(([name, source]) => ({
      find: new RegExp(`^${name}$`),
      replacement: fileURLToPath(new URL(`./${source}`, import.meta.url)),
    })),
  },
  test: {
    // Vitest's default on this 2-core machine is one worker; the emulator tests mostly wait on
    // the emulator and on SQS timings, so three files at once use the cores better.
    maxWorkers: 3,
    reporters: ['default', './test/harness/summaryReporter.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      // The bounds below are for a loaded machine (two CPU burners beside the run), not speed
      // targets: a synth with esbuild took up to 64 s there, a few simulated worlds over 5 s.
      {
        extends: true,
        test: {
          name: 'unit',
          // The examples' tests too, as a reader runs them; the Jest one is Jest's.
          include: ['test/unit/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.jest.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // Builds dist/relay-function, the relay the constructs deploy, from the source under test.
          globalSetup: ['test/infra/globalSetup.ts'],
          testTimeout: 300_000,
        },
      },
      { extends: true, test: { name: 'integration', ...integration } },
      {
        extends: true,
        test: {
          name: 'simulation',
          // Runs after the emulator tests, on the whole machine: its worlds and mutants are CPU work.
          include: ['test/simulation/*.test.ts'],
          sequence: { groupOrder: 1 },
          testTimeout: 1_200_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'simulation-deep',
          // The deep tier: SIMULATION_SEEDS (50,000) worlds in the background, and every mutant's search.
          include: ['test/simulation/deep/*.test.ts'],
          globalSetup: ['test/simulation/deep/globalSetup.ts'],
          sequence: { groupOrder: 1 },
          testTimeout: 1_800_000,
        },
      },
      { extends: true, test: { name: 'conformance', ...integration } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            'test/e2e/consumerProject.e2e.test.ts',
            'test/e2e/testingKit.consumer.test.ts',
          ],
          globalSetup: ['test/e2e/globalSetup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'consumer',
          // The packed tarball in a fresh project, on the Node.js that runs Vitest.
          include: ['test/e2e/consumerProject.e2e.test.ts', 'test/e2e/testingKit.consumer.test.ts'],
          globalSetup: ['test/e2e/packSetup.ts', 'test/e2e/emulatorSetup.ts'],
          testTimeout: 180_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});

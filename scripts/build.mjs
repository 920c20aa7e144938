// `npm run build` (and `prepack`, so that `npm pack` and an install from a git URL build too):
// the library as ES modules in dist/esm and as CommonJS in dist/cjs, each with its own
// declarations, and the outbox relay's function, bundled, in dist/relay-function. The
// package.json written into dist/cjs makes Node and TypeScript read that tree as CommonJS.
// `--relay-function` builds the relay's function alone: the repository's CDK apps run it before
// they synthesize, so they deploy the relay of the source they run.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildRelayFunction } from '../tools/build/relayFunction.mjs';

const USAGE = `usage: npm run build [-- --relay-function]
  builds dist/esm, dist/cjs and dist/relay-function from src/
  --relay-function  builds dist/relay-function alone`;

const root = fileURLToPath(new URL('..', import.meta.url));
const [argument, ...rest] = process.argv.slice(2);
if (argument === '--help' || argument === '-h') {
  console.log(USAGE);
  process.exit(0);
}
if ((argument !== undefined && argument !== '--relay-function') || rest.length > 0) {
  // One line, as every command of the repository refuses an option it does not know.
  console.error(
    `npm run build: unknown option ${[argument, ...rest].join(' ')} (see: npm run build -- --help)`,
  );
  process.exit(2);
}
if (argument === '--relay-function') {
  buildRelayFunction(root);
  process.exit(0);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// All of dist but the relay's function, which is built over (see buildRelayFunction).
mkdirSync('dist', { recursive: true });
for (const entry of readdirSync('dist').filter((name) => name !== 'relay-function'))
  rmSync(`dist/${entry}`, { recursive: true, force: true });
// The two trees at once: each is one single-threaded tsc, so on two cores the build takes the
// time of the slower one instead of both; a failure of either fails the build.
const statuses = await Promise.all(
  ['tsconfig.build.json', 'tsconfig.build.cjs.json'].map(
    (project) =>
      new Promise((resolve) =>
        spawn(process.execPath, [tsc, '-p', project], { stdio: 'inherit' })
          .once('error', () => resolve(1))
          .once('close', (status) => resolve(status ?? 1)),
      ),
  ),
);
const failed = statuses.find((status) => status !== 0);
if (failed !== undefined) process.exit(failed);
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
buildRelayFunction(root);

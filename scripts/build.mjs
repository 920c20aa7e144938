// `npm run build` (and `prepack`, so that `npm pack` and an install from a git URL build too):
// the library as ES modules in dist/esm and as CommonJS in dist/cjs, each with its own
// declarations. The package.json written into dist/cjs makes Node and TypeScript read that
// tree as CommonJS.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [argument] = process.argv.slice(2);
if (argument === '--help' || argument === '-h') {
  console.log('usage: npm run build\n  builds dist/esm and dist/cjs from src/ (no options)');
  process.exit(0);
}
if (argument !== undefined) {
  console.error(`npm run build: unknown option ${argument} (it takes none; see --help)`);
  process.exit(2);
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.build.cjs.json']) {
  const { status } = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);

// The outbox relay's Lambda function, built once when the package is built: src/relay/handler.ts
// and what it imports (the AWS SDK included) bundled into dist/relay-function, which the
// OutboxRelay construct deploys as it is, with no esbuild at the user's synth. Plain JavaScript,
// so that `npm run build` (on `prepack`) runs it with plain node.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/** Where the function is built, from the package root (src/cdk/relayFunctionCode.ts reads it). */
export const RELAY_FUNCTION_DIRECTORY = join('dist', 'relay-function');

/** ESM output has no `require`; the SDK's bundled CommonJS code still calls it for built-ins. */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** What the directory holds: the handler `index.handler`, its source map, the licenses. */
const FILES = ['index.mjs', 'index.mjs.map', 'THIRD_PARTY_LICENSES.txt'];

/**
 * Bundles the relay into `<root>/dist/relay-function` (see {@link FILES}). The files are written
 * over the last build's, never removed first: a synth of the repository's reference app may
 * read them while `npm pack` builds the package in the same checkout (the deep test tier runs
 * both at once).
 */
export function buildRelayFunction(root) {
  const outdir = join(root, RELAY_FUNCTION_DIRECTORY);
  const { metafile } = buildSync({
    absWorkingDir: root,
    entryPoints: ['src/relay/handler.ts'],
    outfile: join(outdir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    // The oldest Node.js the package supports, so the one asset runs on every Lambda runtime
    // the construct's `runtime` may name (the output is the same as for node24 today).
    target: 'node20',
    mainFields: ['module', 'main'],
    minify: true,
    // Mappings only, for the `--enable-source-maps` stack traces: sources stay out of the package.
    sourcemap: true,
    sourcesContent: false,
    banner: { js: ESM_REQUIRE_BANNER },
    metafile: true,
    logLevel: 'warning',
  });
  const output = metafile.outputs[`${RELAY_FUNCTION_DIRECTORY}/index.mjs`];
  writeFileSync(
    join(outdir, 'THIRD_PARTY_LICENSES.txt'),
    thirdPartyLicenses(root, Object.keys(output.inputs)),
  );
  for (const stale of readdirSync(outdir).filter((file) => !FILES.includes(file)))
    rmSync(join(outdir, stale), { recursive: true, force: true });
  return outdir;
}

/** Each bundled package's name, version and license, then each distinct license text once. */
function thirdPartyLicenses(root, inputs) {
  const packages = bundledPackageDirectories(inputs).map((dir) => describePackage(join(root, dir)));
  // One copy of each text, however its packages indent or wrap it.
  const texts = new Map();
  for (const { name, text } of packages) {
    const key = text.replace(/\s+/g, ' ');
    const entry = texts.get(key) ?? { text, names: [] };
    texts.set(key, { ...entry, names: [...entry.names, name] });
  }
  const sections = [...texts.values()].map(({ text, names }) => `${names.join(', ')}\n\n${text}`);
  return [
    'The outbox relay function (index.mjs) bundles these packages, under these licenses:\n',
    ...packages.map(({ name, version, license }) => `${name} ${version} (${license})`),
    ...sections.map((section) => `\n${'-'.repeat(78)}\n${section}`),
  ].join('\n');
}

/** `node_modules/@aws-sdk/core` for `node_modules/@aws-sdk/core/dist-es/index.js`, sorted. */
function bundledPackageDirectories(inputs) {
  const dirs = inputs
    .map((input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1])
    .filter((dir) => dir !== undefined);
  return [...new Set(dirs)].sort();
}

function describePackage(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const files = readdirSync(dir).filter((file) => /^(licen[cs]e|notice)(\.|$)/i.test(file));
  const text = files.map((file) => readFileSync(join(dir, file), 'utf8').trim()).join('\n\n');
  return {
    name: manifest.name,
    version: manifest.version,
    license: manifest.license ?? 'see its license text',
    text: text || `(no license file in the package; its package.json says ${manifest.license})`,
  };
}

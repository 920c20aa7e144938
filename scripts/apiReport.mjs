// `npm run api` checks the public surface against the committed API reports in etc/ (one per
// entry point of package.json's `exports`), and fails when it changed and the report was not
// updated; `npm run api -- --update` writes the reports again, to be reviewed and committed.
// The reports come from @microsoft/api-extractor over declarations emitted into .cache/api:
// every exported name, its signature, its release tag (@public or @beta) and whether it has
// TSDoc (a member without it is marked `// (undocumented)` in the report). An exported name
// without TSDoc or without a release tag fails either way.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const USAGE =
  'usage: npm run api [-- --update]\n  checks etc/*.api.md against src (--update writes them)';
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const unknown = args.filter((arg) => arg !== '--update');
if (unknown.length > 0) {
  console.error(`npm run api: unknown option ${unknown[0]}\n${USAGE}`);
  process.exit(2);
}
const update = args.includes('--update');

const root = resolve(import.meta.dirname, '..');
const declarations = join(root, '.cache', 'api', 'dts');
const packageJsonPath = join(root, 'package.json');
const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8'));

rmSync(declarations, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const emitted = spawnSync(
  process.execPath,
  [
    tsc,
    ...['-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--declarationMap', 'false'],
    ...['--sourceMap', 'false', '--outDir', declarations],
  ],
  { cwd: root, stdio: 'inherit' },
);
if (emitted.status !== 0) process.exit(emitted.status ?? 1);

/** Each entry point: its subpath and its declarations (import condition), from `exports`. */
const entries = Object.entries(manifest.exports)
  .filter(([subpath]) => subpath !== './package.json')
  .map(([subpath, conditions]) => ({
    subpath,
    reportName: subpath === '.' ? manifest.name : `${manifest.name}-${subpath.slice(2)}`,
    dts: join(declarations, conditions.import.types.replace(/^\.\/dist\/esm\//, '')),
  }));

const error = { logLevel: 'error', addToApiReportFile: false };
let failed = 0;
for (const entry of entries) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry.dts,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entry.dts],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.reportName,
        reportFolder: join(root, 'etc'),
        reportTempFolder: join(root, '.cache', 'api', 'reports'),
        includeForgottenExports: false,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          'ae-missing-release-tag': error,
          'ae-undocumented': { logLevel: 'none', addToApiReportFile: true },
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: join(root, 'api-extractor.json'),
    packageJsonFullPath: packageJsonPath,
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  const where = `etc/${entry.reportName}.api.md`;
  const bare = undocumentedNames(
    join(root, '.cache', 'api', 'reports', `${entry.reportName}.api.md`),
  );
  if (bare.length > 0) {
    failed++;
    console.error(`${entry.subpath}: exported without TSDoc: ${bare.join(', ')}`);
  }
  if (!result.succeeded) {
    failed++;
    console.error(
      result.apiReportChanged && !update
        ? `${entry.subpath}: the public surface changed and ${where} was not updated: review the change, then run npm run api -- --update and commit ${where}`
        : `${entry.subpath}: ${result.errorCount} error(s), ${result.warningCount} warning(s) (above)`,
    );
  } else {
    console.log(`${entry.subpath}: ${update ? `wrote ${where}` : `matches ${where}`}`);
  }
}
process.exit(failed > 0 ? 1 : 0);

/** The exported names a report marks undocumented (members are indented; names are not). */
function undocumentedNames(reportPath) {
  const lines = readFileSync(reportPath, 'utf8').split('\n');
  return lines.flatMap((line, at) => {
    if (line !== '// @public (undocumented)' && line !== '// @beta (undocumented)') return [];
    const declaration = lines[at + 1] ?? '';
    return [/^export (?:declare )?(?:abstract )?\w+ (\w+)/.exec(declaration)?.[1] ?? declaration];
  });
}

// `npm run api` checks the public surface against the committed API reports in etc/ (one per
// entry point of package.json's `exports`), and fails when it changed and the report was not
// updated; `npm run api -- --update` writes the reports again, to be reviewed and committed.
// The reports come from @microsoft/api-extractor over declarations emitted into .cache/api:
// every exported name, its signature, its release tag (@public or @beta) and whether it has
// TSDoc (a member without it is marked `// (undocumented)` in the report). An exported name
// without TSDoc or without a release tag fails either way.
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { runChild } from '../tools/cli/runChild.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { projectRoot as root } from '../tools/emulator/paths.js';

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

const declarations = join(root, '.cache', 'api', 'dts');
const packageJsonPath = join(root, 'package.json');
const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as {
  name: string;
  exports: Record<string, { import: { types: string } }>;
};

/** Each entry point: its subpath and its declarations (import condition), from `exports`. */
const entries = Object.entries(manifest.exports)
  .filter(([subpath]) => subpath !== './package.json')
  .map(([subpath, conditions]) => ({
    subpath,
    reportName: subpath === '.' ? manifest.name : `${manifest.name}-${subpath.slice(2)}`,
    dts: join(declarations, conditions.import.types.replace(/^\.\/dist\/esm\//, '')),
  }));

const error = { logLevel: ExtractorLogLevel.Error, addToApiReportFile: false } as const;

/** Checks (or with --update writes) one entry's report; whether it is clean. */
function report(entry: (typeof entries)[number]): boolean {
  let clean = true;
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
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          'ae-missing-release-tag': error,
          'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
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
    clean = false;
    console.error(`${entry.subpath}: exported without TSDoc: ${bare.join(', ')}`);
  }
  if (!result.succeeded) {
    clean = false;
    console.error(
      result.apiReportChanged && !update
        ? `${entry.subpath}: the public surface changed and ${where} was not updated: review the change, then run npm run api -- --update and commit ${where}`
        : `${entry.subpath}: ${result.errorCount} error(s), ${result.warningCount} warning(s) (above)`,
    );
  } else {
    console.log(`${entry.subpath}: ${update ? `wrote ${where}` : `matches ${where}`}`);
  }
  return clean;
}

/** The exported names a report marks undocumented (members are indented; names are not). */
function undocumentedNames(reportPath: string): string[] {
  const lines = readFileSync(reportPath, 'utf8').split('\n');
  return lines.flatMap((line, at) => {
    if (line !== '// @public (undocumented)' && line !== '// @beta (undocumented)') return [];
    const declaration = lines[at + 1] ?? '';
    return [/^export (?:declare )?(?:abstract )?\w+ (\w+)/.exec(declaration)?.[1] ?? declaration];
  });
}

await runCommand('npm run api', async () => {
  rmSync(declarations, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const emitted = await runChild(
    process.execPath,
    [
      tsc,
      ...['-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--declarationMap', 'false'],
      ...['--sourceMap', 'false', '--outDir', declarations],
    ],
    { cwd: root },
  );
  if (emitted.code !== 0) return emitted.code;
  let failed = 0;
  for (const entry of entries) if (!report(entry)) failed++;
  return failed > 0 ? 1 : 0;
});

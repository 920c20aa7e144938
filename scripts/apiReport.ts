// `npm run api` (in `npm test`) checks the public surface against the committed API reports in
// etc/ (one per entry point of package.json's `exports`) and fails when it changed and the
// report was not updated; `npm run api -- --update` writes the reports, to be reviewed and
// committed. The reports come from @microsoft/api-extractor over the declarations the build
// emits: every exported name, its signature, its release tag (@public or @beta), and which
// members have no TSDoc (`// (undocumented)`). Either way it fails on an exported name or a
// member of one without TSDoc, on an exported name without release tag, on a type a public signature uses that no entry exports, and on
// declarations that do not compile in a strict user's project (skipLibCheck off).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type IConfigFile,
} from '@microsoft/api-extractor';
import { undocumentedNames, unexportedTypes } from '../tools/cli/apiReportChecks.js';
import { runChild } from '../tools/cli/runChild.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { onShutdown } from '../tools/cli/shutdown.js';
import { projectRoot as root } from '../tools/emulator/paths.js';

const USAGE =
  'usage: npm run api [-- --update]\n  checks etc/*.api.md against src (--update writes them)';

interface Entry {
  readonly subpath: string;
  readonly reportName: string;
  readonly dts: string;
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, { import: { types: string } }>;
};
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Each entry point: its subpath, its report's name and its declarations under `dir`. */
function entriesIn(dir: string): Entry[] {
  return Object.entries(manifest.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, conditions]) => ({
      subpath,
      reportName: subpath === '.' ? manifest.name : `${manifest.name}-${subpath.slice(2)}`,
      dts: join(dir, conditions.import.types.replace(/^\.\/dist\/esm\//, '')),
    }));
}

function configFor(entry: Entry, tempDir: string): IConfigFile {
  const error = { logLevel: ExtractorLogLevel.Error, addToApiReportFile: false };
  const quiet = { logLevel: ExtractorLogLevel.None, addToApiReportFile: false };
  return {
    projectFolder: root,
    mainEntryPointFilePath: entry.dts,
    newlineKind: 'lf',
    compiler: {
      overrideTsconfig: {
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] },
        files: [entry.dts],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.reportName,
      reportFolder: join(root, 'etc'),
      reportTempFolder: tempDir,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        'ae-missing-release-tag': error,
        'ae-undocumented': quiet,
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
      },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}

function prepare(entry: Entry, tempDir: string): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: configFor(entry, tempDir),
    configObjectFullPath: join(root, 'api-extractor.json'),
    packageJsonFullPath: join(root, 'package.json'),
  });
}

/**
 * One compiler program over every entry's declarations, for all the reports: a program per entry
 * type-checked the same library declarations (skipLibCheck off) eight times over, 45 s of the
 * step; one program checks each file once and reports its problems to every entry.
 */
function sharedCompilerState(entries: readonly Entry[], tempDir: string): CompilerState {
  const [first] = entries;
  if (first === undefined) throw new Error('package.json exports no entry point');
  return CompilerState.create(prepare(first, tempDir), {
    additionalEntryPoints: entries.map((entry) => entry.dts),
  });
}

/** Checks (or with `update` writes) one entry's report; the problems found, one per line. */
function report(
  entry: Entry,
  tempDir: string,
  update: boolean,
  compilerState: CompilerState,
): string[] {
  const result = Extractor.invoke(prepare(entry, tempDir), {
    localBuild: update,
    showVerboseMessages: false,
    compilerState,
  });
  const where = `etc/${entry.reportName}.api.md`;
  const generated = readFileSync(join(tempDir, `${entry.reportName}.api.md`), 'utf8');
  const problems = undocumentedNames(generated).map(
    (name) => `${entry.subpath}: ${name} is exported without TSDoc`,
  );
  if (!result.succeeded) {
    problems.push(
      result.apiReportChanged && !update && result.errorCount === 0
        ? `${entry.subpath}: the public surface changed and ${where} was not updated: review the change, then run npm run api -- --update and commit ${where}`
        : `${entry.subpath}: ${result.errorCount} error(s), ${result.warningCount} warning(s) (above)`,
    );
  }
  if (problems.length === 0)
    console.log(`${entry.subpath}: ${update ? 'wrote' : 'matches'} ${where}`);
  return problems;
}

await runCommand('npm run api', async () => {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const unknown = args.find((arg) => arg !== '--update');
  if (unknown !== undefined) {
    console.error(`npm run api: unknown option ${unknown}\n${USAGE}`);
    return 2;
  }
  mkdirSync(join(root, '.cache'), { recursive: true });
  const work = mkdtempSync(join(root, '.cache', 'api-'));
  onShutdown(() => rmSync(work, { recursive: true, force: true }));
  const declarations = join(work, 'dts');
  const emitted = await runChild(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--declarationMap', 'false'].concat(
      ['--sourceMap', 'false', '--outDir', declarations],
    ),
    { cwd: root },
  );
  if (emitted.code !== 0) return emitted.code;
  const entries = entriesIn(declarations);
  // A process of its own, so it type-checks on the other core while the reports are made.
  const strict = runChild(
    process.execPath,
    [tsc, '--noEmit', '--strict', '--skipLibCheck', 'false', '--types', 'node']
      .concat(['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2023'])
      .concat(entries.map((entry) => entry.dts)),
    { cwd: root },
  );
  const update = args.includes('--update');
  const reportsDir = join(work, 'reports');
  const compilerState = sharedCompilerState(entries, reportsDir);
  const problems = entries.flatMap((entry) => report(entry, reportsDir, update, compilerState));
  if ((await strict).code !== 0) {
    problems.push('the declarations do not compile with skipLibCheck off (above)');
  }
  const reports = entries.map((entry) =>
    readFileSync(join(work, 'reports', `${entry.reportName}.api.md`), 'utf8'),
  );
  problems.push(...unexportedTypes(reports));
  for (const problem of problems) console.error(`npm run api: ${problem}`);
  return problems.length > 0 ? 1 : 0;
});

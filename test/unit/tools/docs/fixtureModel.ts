import { fileURLToPath } from 'node:url';
import { Application, type JSONOutput, normalizePath, TSConfigReader } from 'typedoc';

const fixture = (file: string) => fileURLToPath(new URL(`./fixture/${file}`, import.meta.url));

/**
 * TypeDoc's JSON model of the miniature package in ./fixture, converted as `typedoc --json`
 * converts the real one (two entry points, so two modules: `index` and `errors`).
 *
 * @example
 * ```ts
 * const project = await fixtureModel();
 * ```
 */
export async function fixtureModel(): Promise<JSONOutput.ProjectReflection> {
  const app = await Application.bootstrap(
    {
      entryPoints: [fixture('index.ts'), fixture('errors.ts')],
      tsconfig: fixture('tsconfig.json'),
      excludeInternal: true,
      disableSources: true,
      logLevel: 'Error',
      // As typedoc.json: a `@defaultValue` in prose stays prose, not a TypeScript block.
      jsDocCompatibility: { defaultTag: false },
    },
    // The fixture's tsconfig only: the repository's typedoc.json (the site's plugins and
    // options) is not read.
    [new TSConfigReader()],
  );
  const project = await app.convert();
  if (project === undefined) throw new Error('TypeDoc could not convert the fixture');
  return app.serializer.projectToObject(project, normalizePath(process.cwd()));
}

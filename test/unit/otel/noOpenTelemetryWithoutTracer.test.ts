/**
 * Without `observability.tracer`, no OpenTelemetry module is loaded: no module the package's
 * other entries reach imports `@opentelemetry/*`, statically or dynamically, so neither a
 * bundle nor Node's loader ever fetches one. esbuild follows every import of the entries as a
 * bundler (and Lambda's loader) would and lists each module's imports in its metafile.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function importsOf(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  return Object.values(metafile.inputs).flatMap((input) => input.imports.map(({ path }) => path));
}

describe('OpenTelemetry is loaded only through sqs-inbox/otel', () => {
  it.each(['src/index.ts', 'src/relay/index.ts', 'src/constants/index.ts'])(
    '%s imports no @opentelemetry module, directly or through any module it reaches',
    async (entry) => {
      const imports = await importsOf(entry);

      expect(imports.length).toBeGreaterThan(0);
      expect(imports.filter((path) => path.includes('@opentelemetry'))).toEqual([]);
    },
  );

  it('sqs-inbox/otel does import @opentelemetry/api (the check sees such an import)', async () => {
    expect(await importsOf('src/otel/index.ts')).toContain('@opentelemetry/api');
  });
});

import type { Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/** The esbuild target of a Lambda Node.js runtime: `nodejs24.x` → `node24`. */
function esbuildTarget(runtime: Runtime): string {
  return runtime.name.replace(/^nodejs(\d+)\.x$/, 'node$1');
}

/** ESM output has no `require`; bundled CommonJS code (the AWS SDK's among it) still calls it. */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * The constructs' esbuild settings with `given` merged over them. The `require` banner follows
 * the final format (ESM only) and comes before a banner of the user's own, never instead of it.
 *
 * @example
 * ```ts
 * new NodejsFunction(this, 'Function', { entry, runtime, bundling: bundlingFor(runtime, props.bundling) });
 * ```
 */
export function bundlingFor(runtime: Runtime, given: BundlingOptions = {}): BundlingOptions {
  const format = given.format ?? OutputFormat.ESM;
  const banners = [format === OutputFormat.ESM ? ESM_REQUIRE_BANNER : undefined, given.banner];
  return {
    target: esbuildTarget(runtime),
    // The SDK is bundled: the function runs the version the project's lock file pins.
    externalModules: [],
    mainFields: ['module', 'main'],
    sourceMap: true,
    minify: true,
    ...given,
    format,
    banner: banners.filter((banner) => banner !== undefined).join('\n') || undefined,
  };
}

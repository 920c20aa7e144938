import type { Duration } from 'aws-cdk-lib';
import type { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * The `function` of {@link InboxConsumerProps}: the function the construct creates.
 *
 * @example
 * ```ts
 * import { Duration } from 'aws-cdk-lib';
 * const fn: InboxFunctionProps = { entry: 'src/ledger.ts', timeout: Duration.seconds(60) };
 * ```
 * @public
 */
export interface InboxFunctionProps {
  /**
   * Path of the function's entry file (TypeScript or JavaScript), bundled locally with esbuild.
   * A relative path is resolved from the directory `cdk` runs in (your project's root), like
   * `NodejsFunction`'s own `entry`.
   */
  readonly entry: string;

  /**
   * Exported handler name in `entry`.
   * @defaultValue `'handler'`
   */
  readonly handler?: string;

  /**
   * Function timeout, 1 second to 15 minutes.
   * @defaultValue `Duration.seconds(30)`
   * @see https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html
   */
  readonly timeout?: Duration;

  /**
   * Function memory in MB, 128 to 10,240.
   * @defaultValue `512`
   * @see https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html
   */
  readonly memorySize?: number;

  /**
   * Lambda runtime of the function. Node.js 24 is the newest LTS that Lambda runs, supported
   * the longest; the library itself needs Node.js 20 or later.
   * @defaultValue `Runtime.NODEJS_24_X`
   * @see https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html
   */
  readonly runtime?: Runtime;

  /**
   * Instruction set of the function. Graviton (ARM64) costs about 20 % less per GB-second than
   * x86_64; choose `X86_64` if the handler bundles native modules built for x86.
   * @defaultValue `Architecture.ARM_64`
   * @see https://docs.aws.amazon.com/lambda/latest/dg/foundation-arch.html
   */
  readonly architecture?: Architecture;

  /**
   * esbuild settings, merged over the construct's: ESM output with a `createRequire` banner (so
   * bundled CommonJS code can still `require` Node built-ins), minified, source maps, a target
   * matching `runtime`, and the AWS SDK bundled (`externalModules: []`) so the function runs the
   * SDK version your lock file pins. Set `externalModules: ['@aws-sdk/*']` to use the SDK of the
   * Lambda runtime instead; the docs' installation page (Bundling) compares both.
   * @defaultValue the settings above
   * @see https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_lambda_nodejs.BundlingOptions.html
   */
  readonly bundling?: BundlingOptions;

  /**
   * Extra environment variables of the function. Names starting with `INBOX_` and the ones the
   * construct sets (`POWERTOOLS_SERVICE_NAME`, `POWERTOOLS_METRICS_NAMESPACE`, `NODE_OPTIONS`)
   * are refused.
   * @defaultValue none
   */
  readonly environment?: Readonly<Record<string, string>>;
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { InboxValidationError } from './InboxValidationError.js';
import moduleDirectory from './moduleDirectory.cjs';

/** The relay's function inside the package, as `npm run build` leaves it (tools/build). */
const RELAY_FUNCTION_DIRECTORY = join('dist', 'relay-function');

/**
 * The relay function's code: the directory the package ships, built with the package (the
 * handler `index.handler`, the AWS SDK bundled in), deployed as it is. It is found from this
 * module's own file, wherever `cdk` runs; a checkout of sqs-inbox that was not built has none,
 * and is told to run `npm run build`.
 *
 * @example
 * ```ts
 * new LambdaFunction(this, 'Function', { code: relayFunctionCode(this), handler: 'index.handler', runtime });
 * ```
 */
export function relayFunctionCode(scope: IConstruct, from: string = moduleDirectory): Code {
  const root = packageRoot(from);
  const directory = root === undefined ? undefined : join(root, RELAY_FUNCTION_DIRECTORY);
  if (directory === undefined || !existsSync(join(directory, 'index.mjs'))) {
    const where = directory ?? `no sqs-inbox package above ${from}`;
    throw new InboxValidationError(
      scope,
      `the relay's pre-built function is missing (${where}). An installed sqs-inbox ships it; ` +
        'in a checkout of sqs-inbox, run npm run build. Or give the outbox a relayEntry of your own.',
    );
  }
  return Code.fromAsset(directory);
}

/** The nearest directory at or above `from` whose package.json is sqs-inbox's. */
function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (packageName(join(dir, 'package.json')) === 'sqs-inbox') return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The `name` of a package.json; undefined where there is none, or none that parses. */
function packageName(path: string): unknown {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

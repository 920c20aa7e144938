import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IConstruct } from 'constructs';
import { InboxValidationError } from './InboxValidationError.js';

/**
 * The relay function's entry: the installed package's `src/relay/handler.ts`, found from the
 * directory `cdk` runs in (your project's root), bundled like your own functions. Checks that
 * the clients it sends with can be bundled, naming the packages to install when not.
 *
 * @example
 * ```ts
 * new NodejsFunction(this, 'Relay', { entry: relayEntry(this), runtime });
 * ```
 */
export function relayEntry(scope: IConstruct): string {
  const fromProject = createRequire(join(process.cwd(), 'package.json'));
  let manifest: string;
  try {
    manifest = fromProject.resolve('sqs-inbox/package.json');
  } catch (cause) {
    throw new InboxValidationError(
      scope,
      `cannot find the sqs-inbox package from ${process.cwd()} to bundle the relay. Run cdk ` +
        'from your project root, or give the outbox a relayEntry.',
      { cause },
    );
  }
  const entry = join(dirname(manifest), 'src', 'relay', 'handler.ts');
  const fromEntry = createRequire(entry);
  const missing = ['@aws-sdk/client-sns', '@aws-sdk/client-eventbridge'].filter((name) => {
    try {
      fromEntry.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new InboxValidationError(
      scope,
      `the relay sends to SNS and EventBridge too and is bundled with their ` +
        `clients; install ${missing.join(' and ')} (npm install -D ${missing.join(' ')}).`,
    );
  }
  return entry;
}

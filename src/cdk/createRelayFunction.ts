import { Duration } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type FunctionOptions,
  Function as LambdaFunction,
  Runtime,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundlingFor } from './bundlingFor.js';
import type { OutboxRelayProps } from './OutboxRelayProps.js';
import { relayFunctionCode } from './relayFunctionCode.js';

/**
 * What the relay's function is given besides its code: the role and log group the construct
 * made, and the environment.
 *
 * @example
 * ```ts
 * const parts: RelayFunctionParts = { scope: this, role, logGroup, environment };
 * ```
 */
export interface RelayFunctionParts {
  readonly scope: Construct;
  readonly role: IRole;
  readonly logGroup: ILogGroup;
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * The relay's function: the library's relay as the package ships it, pre-built (nothing is
 * bundled at synth), or a `relayEntry` of the user's, bundled like a consumer's function.
 *
 * @example
 * ```ts
 * const fn = createRelayFunction({ scope: this, role, logGroup, environment }, props);
 * ```
 */
export function createRelayFunction(
  parts: RelayFunctionParts,
  props: OutboxRelayProps,
): LambdaFunction {
  const runtime = props.runtime ?? Runtime.NODEJS_24_X;
  const options: FunctionOptions = {
    role: parts.role,
    architecture: props.architecture ?? Architecture.ARM_64,
    timeout: Duration.minutes(1),
    memorySize: 256,
    logGroup: parts.logGroup,
    description: `sqs-inbox outbox relay of ${props.name}`,
    environment: { ...parts.environment, NODE_OPTIONS: '--enable-source-maps' },
  };
  if (props.relayEntry === undefined) {
    return new LambdaFunction(parts.scope, 'Function', {
      ...options,
      runtime,
      code: relayFunctionCode(parts.scope),
      handler: 'index.handler',
    });
  }
  return new NodejsFunction(parts.scope, 'Function', {
    ...options,
    runtime,
    entry: props.relayEntry,
    handler: 'handler',
    bundling: bundlingFor(runtime, props.bundling),
  });
}

import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, type Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { businessTableVariable, InboxEnvironment } from '../constants/values.js';
import { bundlingFor } from './bundlingFor.js';
import type { BusinessTableGrant, InboxConsumerProps } from './InboxConsumerProps.js';
import type { InboxFunctionProps } from './InboxFunctionProps.js';
import { InboxValidationError } from './InboxValidationError.js';
import type { OutboxRelay } from './OutboxRelay.js';
import { createFunctionRole } from './ownResources.js';
import { retryEnvironment } from './resolveConsumerRetry.js';
import type { InboxConsumerSettings } from './resolveInboxConsumerProps.js';
import type { ResolvedQueueSources } from './resolveQueueSources.js';

/** The existing functions consumers were given, by the path of the consumer given each. */
const boundFunctions = new WeakMap<LambdaFunction, string>();

/**
 * What the consumer's function is told: the resources the construct made or was given.
 *
 * @example
 * ```ts
 * const parts: ConsumerFunctionParts = { scope: this, inboxTable, deadLetterQueue, sources, outbox };
 * ```
 */
export interface ConsumerFunctionParts {
  readonly scope: Construct;
  readonly inboxTable: ITable;
  readonly deadLetterQueue: IQueue;
  readonly sources: ResolvedQueueSources;
  readonly outbox: OutboxRelay | undefined;
}

/**
 * The consumer's function and the log group the construct made for it: the function it creates
 * and bundles from `function` (with a log group), or the user's `existingFunction` (without: its
 * `logGroup` getter would add a log-retention custom resource), given the environment contract
 * either way.
 *
 * @example
 * ```ts
 * const { fn, logGroup } = createConsumerFunction(parts, props, settings);
 * ```
 */
export function createConsumerFunction(
  parts: ConsumerFunctionParts,
  props: InboxConsumerProps,
  s: InboxConsumerSettings,
): { readonly fn: LambdaFunction; readonly logGroup: ILogGroup | undefined } {
  const environment = contractOf(parts, props, s);
  if (props.existingFunction) {
    const fn = props.existingFunction;
    const bound = boundFunctions.get(fn);
    if (bound !== undefined) {
      throw new InboxValidationError(
        parts.scope,
        `existingFunction is already the function of ${bound}: one function serves one consumer ` +
          '(its environment names one consumer, inbox table and dead-letter queue).',
      );
    }
    boundFunctions.set(fn, parts.scope.node.path);
    for (const [name, value] of Object.entries(environment)) fn.addEnvironment(name, value);
    return { fn, logGroup: undefined };
  }
  return createBundledFunction(parts, props.function as InboxFunctionProps, s, environment);
}

/** The variables `inboxConfigFromEnvironment()` reads, and the Powertools service and namespace. */
function contractOf(
  parts: ConsumerFunctionParts,
  props: InboxConsumerProps,
  s: InboxConsumerSettings,
): Record<string, string> {
  const businessEnvironment = Object.fromEntries(
    Object.entries(props.businessTables ?? {}).map(([name, entry]) => [
      businessTableVariable(name),
      toGrant(entry).table.tableName,
    ]),
  );
  const { sources } = parts;
  return {
    [InboxEnvironment.TableName]: parts.inboxTable.tableName,
    [InboxEnvironment.Consumer]: s.consumer,
    [InboxEnvironment.TtlSeconds]: String(s.ttl.toSeconds()),
    [InboxEnvironment.DeadLetterQueueUrl]: parts.deadLetterQueue.queueUrl,
    [InboxEnvironment.MaxReceiveCount]: String(s.maxReceiveCount),
    [InboxEnvironment.Sources]: sources.kinds.join(','),
    ...(sources.keyVariable ? { [InboxEnvironment.Key]: sources.keyVariable } : {}),
    ...retryEnvironment(s.retry),
    POWERTOOLS_SERVICE_NAME: s.consumer,
    POWERTOOLS_METRICS_NAMESPACE: s.metricsNamespace,
    ...businessEnvironment,
    ...parts.outbox?.publisherEnvironment(),
  };
}

function createBundledFunction(
  { scope }: ConsumerFunctionParts,
  props: InboxFunctionProps,
  s: InboxConsumerSettings,
  contract: Record<string, string>,
): { readonly fn: LambdaFunction; readonly logGroup: ILogGroup } {
  // An own role and log group instead of AWSLambdaBasicExecutionRole, whose logs:* actions
  // apply to every log group of the account.
  const logGroup = new LogGroup(scope, 'FunctionLogs', { retention: RetentionDays.ONE_MONTH });
  const role = createFunctionRole(scope, `sqs-inbox consumer ${s.consumer}`, logGroup);
  const runtime = props.runtime ?? Runtime.NODEJS_24_X;
  const fn = new NodejsFunction(scope, 'Function', {
    role,
    entry: props.entry,
    handler: props.handler ?? 'handler',
    runtime,
    architecture: props.architecture ?? Architecture.ARM_64,
    timeout: s.functionTimeout,
    memorySize: s.memorySize,
    logGroup,
    environment: {
      ...contract,
      // Stack traces through the minified bundle point at the TypeScript sources.
      NODE_OPTIONS: '--enable-source-maps',
      ...props.environment,
    },
    bundling: bundlingFor(runtime, props.bundling),
  });
  return { fn, logGroup };
}

/**
 * The grant of one `businessTables` entry, whether given as a table or as `{ table, actions }`.
 *
 * @example
 * ```ts
 * const { table, actions } = toGrant(accounts);
 * ```
 */
export function toGrant(entry: ITable | BusinessTableGrant): BusinessTableGrant {
  return 'table' in entry && !('tableName' in entry) ? entry : { table: entry as ITable };
}

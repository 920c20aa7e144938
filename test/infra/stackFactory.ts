import { fileURLToPath } from 'node:url';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { expect } from 'vitest';
import type { InboxConsumerProps, InboxFunctionProps } from '../../src/cdk/index.js';
import { InboxConsumer } from '../../src/cdk/index.js';

export const fixtureEntry = fileURLToPath(new URL('./fixtures/handler.ts', import.meta.url));

/** How a test's app is made: bundled or not, and the CDK context it is given (`-c` as a user's). */
export interface StackOptions {
  readonly bundle?: boolean;
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * A fresh app and stack for one test. Most tests read only the template, so esbuild is skipped
 * (CDK's `aws:cdk:bundling-stacks` left empty: the asset is a placeholder); `bundle: true` runs
 * it, for tests that read the bundle. The packed-tarball consumer project bundles for real.
 */
export function freshStack(options: StackOptions = {}): Stack {
  const bundling = options.bundle === true ? {} : { 'aws:cdk:bundling-stacks': [] };
  const context = { ...bundling, ...options.context };
  return new Stack(new App({ context }), 'TestStack', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
}

/** A test's consumer props: any of the construct's, the function's `entry` optional. */
export type TestConsumerProps = Omit<Partial<InboxConsumerProps>, 'function'> & {
  readonly function?: Partial<InboxFunctionProps>;
};

/**
 * The props of the test consumer `orders`, bundling the fixture's handler, with `props` over
 * them (and over its function's props; none with an existing function, unless `props` gives
 * `function` too).
 */
export function withFixture(props: TestConsumerProps): InboxConsumerProps {
  const { function: fn, ...rest } = props;
  return {
    consumer: 'orders',
    ...rest,
    ...(rest.existingFunction && !fn ? {} : { function: { entry: fixtureEntry, ...fn } }),
  };
}

/** A fresh stack holding one InboxConsumer with the given props, and its template. */
export function consumerTemplate(props: TestConsumerProps = {}, options: StackOptions = {}) {
  const stack = freshStack(options);
  const consumer = new InboxConsumer(stack, 'Consumer', withFixture(props));
  return { stack, consumer, template: Template.fromStack(stack) };
}

/**
 * A fresh stack holding an `Accounts` business table (keyed by `accountId`, with `tableProps`
 * built in that stack) and one InboxConsumer whose props `props` builds from it.
 */
export function consumerWithAccounts(
  props: (accounts: Table) => TestConsumerProps,
  tableProps: (stack: Stack) => Partial<TableProps> = () => ({}),
) {
  const stack = freshStack();
  const accounts = new Table(stack, 'Accounts', {
    partitionKey: { name: 'accountId', type: AttributeType.STRING },
    ...tableProps(stack),
  });
  const consumer = new InboxConsumer(stack, 'Consumer', withFixture(props(accounts)));
  return { stack, accounts, consumer, template: Template.fromStack(stack) };
}

/** A statement of a synthesized IAM policy. */
export interface PolicyStatementJson {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** Every statement of the policies attached to a function's role, from the synthesized template. */
export function roleStatements(stack: Stack, fn: IFunction, template = Template.fromStack(stack)) {
  const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}

/**
 * cdk-nag's AwsSolutions checks pass on the stack `build` makes, and fail on a second one with
 * a finding planted (an unencrypted queue without TLS enforcement): the check can fail.
 */
export function expectNagCleanAndAbleToFail(build: () => { stack: Stack }): void {
  const { stack } = build();
  const app = stack.node.root as App;
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  expect(() => app.synth()).not.toThrow();

  const broken = build();
  new Queue(broken.stack, 'Unencrypted', { enforceSSL: false });
  const brokenApp = broken.stack.node.root as App;
  Validations.of(brokenApp).addPlugins(new AwsSolutionsChecks(brokenApp));
  expect(() => brokenApp.synth()).toThrow(/[Vv]alidation/);
}

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CdkContext } from '../../src/constants/index.js';
import { projectRoot } from '../emulator/paths.js';
import { CdkRunner } from './CdkRunner.js';
import { enforceTemplateSettings, type Template } from './enforceTemplateSettings.js';
import { clientConfigOf, type VerifyTarget } from './VerifyTarget.js';

/** The stack the CDK app defines. */
export const STACK_NAME = 'SqsInboxReference';

/** The services MiniStack must route for a CDK deploy and for the deployed consumers. */
export const DEPLOY_SERVICES = [
  'cloudformation',
  's3',
  'sts',
  'ssm',
  'iam',
  'lambda',
  'sqs',
  'dynamodb',
  // The ledger's outbox: its table's stream and the relay's mapping on it.
  'dynamodbstreams',
  'logs',
  'cloudwatch',
  'sns',
  'events',
  'ses',
] as const;

/** What a deployment produced: the stack outputs and what had to be re-applied. */
export interface LocalDeployment {
  readonly endpoint: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly repairs: readonly string[];
}

/** What a deployment to a target produced. */
export interface Deployment {
  readonly outputs: Readonly<Record<string, string>>;
  /** What the deployed stack lacked of its template and was applied (none on AWS). */
  readonly repairs: readonly string[];
}

/** Which CDK app to deploy, and how. */
export interface DeployOptions {
  /**
   * `-c name=value` context for the app. On an emulator over `sqs-inbox:metricMathAlarms=false`,
   * which every emulator deploy gets: MiniStack's CloudFormation refuses an alarm on metric math.
   */
  readonly context?: Readonly<Record<string, string>>;
  /** Where progress and repairs are reported. */
  readonly log?: (line: string) => void;
  /** The directory holding the app's `cdk.json`; default this repository (the reference app). */
  readonly projectDir?: string;
  /** The stack to deploy; default the reference stack. */
  readonly stackName?: string;
  /** The app command (`cdk --app`); default the one of `cdk.json`. */
  readonly app?: string;
  /** Run `cdk bootstrap` first: always on an emulator; on AWS only when asked. */
  readonly bootstrap?: boolean;
  /** The cloud assembly's directory; default `.cache/cdk.out.local` under the project. */
  readonly outputDir?: string;
  /** Runs the CDK commands; give one to stop a deploy under way ({@link CdkRunner.stop}). */
  readonly cdk?: CdkRunner;
  /** An SES sender that may not send yet is no error (on AWS it waits for its link). */
  readonly allowUnverifiedSender?: boolean;
}

/**
 * Deploys a CDK app to a target with `cdk` (`cdklocal` on an emulator): bootstrap, then deploy;
 * then checks that what the template asks for is in force — queue redrive policies, table TTL
 * and PITR — and applies what the emulator's CloudFormation dropped, saying so in `repairs`
 * (none on AWS, where CloudFormation applies all of it).
 *
 * @example
 * ```ts
 * const { outputs } = await deployStack({ kind: 'aws', region: 'eu-west-1', profile: 'dev' });
 * ```
 */
export async function deployStack(
  target: VerifyTarget,
  options: DeployOptions = {},
): Promise<Deployment> {
  const { log = console.log, projectDir = projectRoot } = options;
  const stackName = options.stackName ?? STACK_NAME;
  const outputDir = outputDirOf(options);
  const outputsFile = join(outputDir, 'outputs.json');
  mkdirSync(outputDir, { recursive: true });
  const common = cdkArgumentsOf(target, options);
  const cdk = options.cdk ?? new CdkRunner(target, projectDir);
  const where = target.kind === 'emulator' ? target.endpoint : `AWS ${target.region}`;
  if (target.kind === 'emulator' || options.bootstrap) {
    log(`[deploy] bootstrapping the CDK environment on ${where}`);
    await cdk.run(['bootstrap', ...common]);
  }
  log(`[deploy] deploying ${stackName} to ${where}`);
  await cdk.run([
    'deploy',
    stackName,
    '--require-approval',
    'never',
    '--outputs-file',
    outputsFile,
    ...common,
  ]);
  const outputs = JSON.parse(readFileSync(outputsFile, 'utf8'))[stackName] as Record<
    string,
    string
  >;
  const template = JSON.parse(
    readFileSync(join(outputDir, `${stackName}.template.json`), 'utf8'),
  ) as Template;
  const repairs = await enforceTemplateSettings(
    clientConfigOf(target),
    template,
    stackName,
    !options.allowUnverifiedSender,
  );
  for (const repair of repairs) log(`[deploy] ${repair}`);
  return { outputs, repairs };
}

/**
 * The arguments every CDK command of a deployment gets: the cloud assembly's directory, the app,
 * and the context (on an emulator, `sqs-inbox:metricMathAlarms=false` under the given context).
 * `cdk destroy` gets the same, so that it synthesizes the stack that was deployed.
 *
 * @example
 * ```ts
 * cdk.run(['destroy', STACK_NAME, '--force', ...cdkArgumentsOf(target, options)]);
 * ```
 */
export function cdkArgumentsOf(target: VerifyTarget, options: DeployOptions): string[] {
  const context = options.context ?? {};
  const fullContext =
    target.kind === 'emulator' ? { [CdkContext.MetricMathAlarms]: 'false', ...context } : context;
  const contextArgs = Object.entries(fullContext).flatMap(([key, value]) => [
    '-c',
    `${key}=${value}`,
  ]);
  const appArgs = options.app ? ['--app', options.app] : [];
  return ['--no-notices', '--output', outputDirOf(options), ...appArgs, ...contextArgs];
}

function outputDirOf(options: DeployOptions): string {
  return options.outputDir ?? join(options.projectDir ?? projectRoot, '.cache', 'cdk.out.local');
}

/**
 * Deploys a CDK app to an emulator with `cdklocal` ({@link deployStack} on the emulator target).
 *
 * @example
 * ```ts
 * const { outputs } = await deployToEmulator(emulator.endpoint, { context: { removalPolicy: 'destroy' } });
 * ```
 */
export async function deployToEmulator(
  endpoint: string,
  options: DeployOptions = {},
): Promise<LocalDeployment> {
  return { endpoint, ...(await deployStack({ kind: 'emulator', endpoint }, options)) };
}

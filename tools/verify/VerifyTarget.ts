import { join } from 'node:path';
import { projectRoot } from '../emulator/paths.js';

/** The emulator's region and dummy credentials, as every local run uses them. */
const EMULATOR_REGION = 'us-east-1';
const EMULATOR_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

/**
 * Where the reference stack is deployed: an emulator's endpoint (cdklocal, dummy credentials),
 * or an AWS account through the caller's profile and region (cdk, the caller's credentials).
 */
export type VerifyTarget =
  | { readonly kind: 'emulator'; readonly endpoint: string }
  | { readonly kind: 'aws'; readonly region: string; readonly profile?: string };

/** The SDK client settings of a target: its endpoint and test credentials, or profile and region. */
export interface TargetClientConfig {
  readonly region: string;
  readonly endpoint?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly profile?: string;
}

/**
 * The SDK client settings of `target`.
 *
 * @example
 * ```ts
 * new SQSClient(clientConfigOf({ kind: 'aws', region: 'eu-west-1', profile: 'dev' }));
 * ```
 */
export function clientConfigOf(target: VerifyTarget): TargetClientConfig {
  if (target.kind === 'emulator')
    return {
      region: EMULATOR_REGION,
      endpoint: target.endpoint,
      credentials: EMULATOR_CREDENTIALS,
    };
  return { region: target.region, ...(target.profile ? { profile: target.profile } : {}) };
}

/**
 * The environment a CDK command of `target` runs in: the emulator's endpoint and credentials for
 * cdklocal, or the profile and region for cdk (the caller's own credentials otherwise).
 *
 * @example
 * ```ts
 * spawn(cdkCommandOf(target), args, { env: cdkEnvironmentOf(target) });
 * ```
 */
export function cdkEnvironmentOf(target: VerifyTarget): NodeJS.ProcessEnv {
  const common = { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' };
  if (target.kind === 'aws') {
    return {
      ...common,
      AWS_REGION: target.region,
      AWS_DEFAULT_REGION: target.region,
      CDK_DEFAULT_REGION: target.region,
      ...(target.profile ? { AWS_PROFILE: target.profile } : {}),
    };
  }
  return {
    ...common,
    AWS_ENDPOINT_URL: target.endpoint,
    AWS_ENDPOINT_URL_S3: target.endpoint,
    AWS_ACCESS_KEY_ID: EMULATOR_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: EMULATOR_CREDENTIALS.secretAccessKey,
    AWS_REGION: EMULATOR_REGION,
    AWS_DEFAULT_REGION: EMULATOR_REGION,
  };
}

/**
 * The CDK command of `target`: the repository's `cdklocal` for an emulator, its `cdk` for AWS.
 *
 * @example
 * ```ts
 * cdkCommandOf({ kind: 'emulator', endpoint }); // => '<repo>/node_modules/.bin/cdklocal'
 * ```
 */
export function cdkCommandOf(target: VerifyTarget): string {
  return join(projectRoot, 'node_modules', '.bin', target.kind === 'aws' ? 'cdk' : 'cdklocal');
}

/**
 * The command that destroys the stack by hand, as a user types it.
 *
 * @example
 * ```ts
 * manualDestroyCommand({ kind: 'aws', region: 'eu-west-1', profile: 'dev' }, 'SqsInboxReference');
 * // => 'npx cdk destroy SqsInboxReference --force --profile dev (with AWS_REGION=eu-west-1)'
 * ```
 */
export function manualDestroyCommand(target: VerifyTarget, stackName: string): string {
  if (target.kind === 'emulator')
    return `AWS_ENDPOINT_URL=${target.endpoint} AWS_REGION=${EMULATOR_REGION} AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test npx cdklocal destroy ${stackName} --force`;
  const profile = target.profile ? ` --profile ${target.profile}` : '';
  return `AWS_REGION=${target.region} npx cdk destroy ${stackName} --force${profile}`;
}

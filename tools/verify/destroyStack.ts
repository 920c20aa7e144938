import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CloudFormationClient,
  DescribeStacksCommand,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { type CloudWatchLogsClient, DeleteLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  DeleteObjectsCommand,
  ListObjectVersionsCommand,
  PutBucketLoggingCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { CdkRunner } from './CdkRunner.js';
import { listStackResources } from './listStackResources.js';

/** What a destroy needs: the CDK runner and arguments of the deploy, and the clients. */
export interface DestroyPlan {
  readonly cdk: CdkRunner;
  readonly stackName: string;
  /** The arguments every CDK command of the run gets (`--output`, `-c` context). */
  readonly cdkArguments: readonly string[];
  readonly clients: {
    readonly cloudFormation: CloudFormationClient;
    readonly s3: S3Client;
    readonly logs: CloudWatchLogsClient;
  };
  readonly log: (line: string) => void;
}

const SETTLE_POLL_MILLIS = 5_000;
/** How long a request a stopped CDK command had sent may take to land before "no stack" is believed. */
const STOPPED_REQUEST_MILLIS = 30_000;
const SETTLE_WAIT_MILLIS = 30 * 60_000;

/**
 * Destroys the stack whatever state the run left it in: stops a CDK command under way (a deploy
 * interrupted; with no stack to be seen then, it looks again every 5 s for 30 s, as a request
 * the command had sent may still create one), waits until CloudFormation is done with the
 * stack (no `*_IN_PROGRESS`), empties its buckets (a bucket with objects cannot be deleted), then `cdk destroy --force`; one more
 * emptying and destroy if the first fails (access logs may land late); then deletes the log
 * groups the stack retains (the functions' logs). Resolves once DescribeStacks says the stack
 * does not exist.
 *
 * @example
 * ```ts
 * await destroyStack({ cdk, stackName: 'SqsInboxReference', cdkArguments, clients, log: console.log });
 * ```
 */
export async function destroyStack(plan: DestroyPlan): Promise<void> {
  const { cdk, stackName, clients, log } = plan;
  const stopped = await cdk.stop();
  if ((await stackAfterStop(plan, stopped)) === undefined) {
    log(`[destroy] ${stackName} does not exist: nothing to destroy`);
    return;
  }
  const destroy = ['destroy', stackName, '--force', ...plan.cdkArguments];
  const logGroups = await resourcesOf(plan, 'AWS::Logs::LogGroup');
  try {
    await emptyBuckets(plan);
    await cdk.run(destroy);
  } catch (error) {
    log(`[destroy] ${(error as Error).message}; emptying the buckets again and retrying`);
    await emptyBuckets(plan);
    await cdk.run(destroy);
  }
  const left = await stackStatus(clients.cloudFormation, stackName);
  if (left !== undefined) throw new Error(`${stackName} is still there after cdk destroy: ${left}`);
  log(`[destroy] ${stackName} destroyed`);
  for (const logGroupName of logGroups)
    await clients.logs.send(new DeleteLogGroupCommand({ logGroupName })).catch(() => undefined);
  if (logGroups.length > 0) log(`[destroy] deleted the ${logGroups.length} log groups it retained`);
}

/**
 * The stack's settled status; after stopping a command, a stack not there yet is looked for
 * again every 5 s for 30 s — a request the command had sent (CreateChangeSet) may still land.
 */
async function stackAfterStop(plan: DestroyPlan, stopped: boolean): Promise<string | undefined> {
  const { clients, stackName, log } = plan;
  const deadline = Date.now() + (stopped ? STOPPED_REQUEST_MILLIS : 0);
  for (;;) {
    const status = await settledStatus(clients.cloudFormation, stackName, log);
    if (status !== undefined || Date.now() >= deadline) return status;
    await sleep(SETTLE_POLL_MILLIS);
  }
}

/** The physical ids of the stack's resources of one type that still exist. */
async function resourcesOf({ clients, stackName }: DestroyPlan, type: string): Promise<string[]> {
  return liveResourceIds(await listStackResources(clients.cloudFormation, stackName), type);
}

/**
 * The physical ids of `resources` of one type, without those CloudFormation already deleted: a
 * deploy that failed and rolled back (ROLLBACK_COMPLETE) still lists its bucket, DELETE_COMPLETE
 * with its old name, and emptying that bucket would fail the destroy on NoSuchBucket.
 *
 * @example
 * ```ts
 * liveResourceIds(resources, 'AWS::S3::Bucket'); // => ['sqsinboxreference-bucket-1a2b']
 * ```
 */
export function liveResourceIds(
  resources: readonly Pick<
    StackResourceSummary,
    'ResourceType' | 'ResourceStatus' | 'PhysicalResourceId'
  >[],
  type: string,
): string[] {
  return resources
    .filter((r) => r.ResourceType === type && r.ResourceStatus !== 'DELETE_COMPLETE')
    .map((r) => r.PhysicalResourceId ?? '')
    .filter(Boolean);
}

/**
 * The stack's status once no operation is in progress on it (undefined: it does not exist).
 * A deploy stopped mid-way leaves CloudFormation creating: that is waited out.
 */
async function settledStatus(
  cloudFormation: CloudFormationClient,
  stackName: string,
  log: (line: string) => void,
): Promise<string | undefined> {
  const deadline = Date.now() + SETTLE_WAIT_MILLIS;
  for (;;) {
    const status = await stackStatus(cloudFormation, stackName);
    if (!cloudFormationBusy(status) || Date.now() > deadline) return status;
    log(`[destroy] ${stackName} is ${status}; waiting for CloudFormation to finish`);
    await sleep(SETTLE_POLL_MILLIS);
  }
}

/**
 * Whether CloudFormation is still working on a stack of `status`, so that a delete must wait. Not
 * REVIEW_IN_PROGRESS: a new stack whose change set was never executed (a `cdk deploy` stopped
 * between creating and executing it) stays so forever, and DeleteStack takes it as it is.
 *
 * @example
 * ```ts
 * cloudFormationBusy('CREATE_IN_PROGRESS'); // => true
 * cloudFormationBusy('REVIEW_IN_PROGRESS'); // => false
 * ```
 */
export function cloudFormationBusy(status: string | undefined): boolean {
  return status?.endsWith('_IN_PROGRESS') === true && status !== 'REVIEW_IN_PROGRESS';
}

/**
 * The stack's status; undefined when DescribeStacks says it does not exist.
 *
 * @example
 * ```ts
 * if ((await stackStatus(cloudFormation, 'SqsInboxReference')) === undefined) console.log('gone');
 * ```
 */
export async function stackStatus(
  cloudFormation: CloudFormationClient,
  stackName: string,
): Promise<string | undefined> {
  try {
    const { Stacks = [] } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    const status = Stacks[0]?.StackStatus;
    return status === 'DELETE_COMPLETE' ? undefined : status;
  } catch (error) {
    if (/does not exist/.test((error as Error).message)) return undefined;
    throw error;
  }
}

/** Turns off access logging into the stack's buckets, then deletes every object version. */
async function emptyBuckets(plan: DestroyPlan): Promise<void> {
  const { clients, log } = plan;
  const buckets = await resourcesOf(plan, 'AWS::S3::Bucket');
  for (const Bucket of buckets)
    await clients.s3.send(new PutBucketLoggingCommand({ Bucket, BucketLoggingStatus: {} }));
  for (const Bucket of buckets) {
    const deleted = await emptyBucket(clients.s3, Bucket);
    if (deleted > 0) log(`[destroy] emptied ${Bucket} (${deleted} objects)`);
  }
}

async function emptyBucket(s3: S3Client, Bucket: string): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket }));
    const Objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({
      Key: v.Key ?? '',
      ...(v.VersionId && v.VersionId !== 'null' ? { VersionId: v.VersionId } : {}),
    }));
    if (Objects.length === 0) return deleted;
    await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }));
    deleted += Objects.length;
  }
}

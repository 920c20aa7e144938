import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CloudFormationClient,
  DescribeStackResourcesCommand,
} from '@aws-sdk/client-cloudformation';
import {
  DescribeContinuousBackupsCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  UpdateContinuousBackupsCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import {
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { CdkContext } from '../../src/constants/index.js';
import { trackChild } from '../cli/shutdown.js';
import { projectRoot } from '../emulator/paths.js';
import { enforceSenderIdentity } from './enforceSenderIdentity.js';

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

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const region = 'us-east-1';

/** What a local deployment produced: the stack outputs and what had to be re-applied. */
export interface LocalDeployment {
  readonly endpoint: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly repairs: readonly string[];
}

/** Which CDK app to deploy, and how. */
export interface DeployOptions {
  /**
   * `-c name=value` context for the app, over `sqs-inbox:metricMathAlarms=false`, which every
   * deploy here gets: MiniStack's CloudFormation refuses an alarm on metric math.
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
}

/**
 * Deploys a CDK app to an emulator with `cdklocal` (bootstrap, then deploy), then checks that
 * what the template asks for is in force — queue redrive policies, table TTL and PITR — and
 * applies what the emulator's CloudFormation dropped, saying so in `repairs`.
 */
export async function deployToEmulator(
  endpoint: string,
  options: DeployOptions = {},
): Promise<LocalDeployment> {
  const { context = {}, log = console.log, projectDir = projectRoot } = options;
  const stackName = options.stackName ?? STACK_NAME;
  const outputDir = join(projectDir, '.cache', 'cdk.out.local');
  const outputsFile = join(outputDir, 'outputs.json');
  mkdirSync(outputDir, { recursive: true });
  const emulatorContext = { [CdkContext.MetricMathAlarms]: 'false', ...context };
  const contextArgs = Object.entries(emulatorContext).flatMap(([key, value]) => [
    '-c',
    `${key}=${value}`,
  ]);
  const appArgs = options.app ? ['--app', options.app] : [];
  const common = ['--no-notices', '--output', outputDir, ...appArgs, ...contextArgs];
  log(`[deploy:local] bootstrapping the CDK environment on ${endpoint}`);
  await runCdk(['bootstrap', ...common], endpoint, projectDir);
  log(`[deploy:local] deploying ${stackName}`);
  await runCdk(
    ['deploy', stackName, '--require-approval', 'never', '--outputs-file', outputsFile, ...common],
    endpoint,
    projectDir,
  );
  const outputs = JSON.parse(readFileSync(outputsFile, 'utf8'))[stackName] as Record<
    string,
    string
  >;
  const template = JSON.parse(
    readFileSync(join(outputDir, `${stackName}.template.json`), 'utf8'),
  ) as Template;
  const repairs = await enforceTemplateSettings(endpoint, template, stackName);
  for (const repair of repairs) log(`[deploy:local] ${repair}`);
  return { endpoint, outputs, repairs };
}

function runCdk(args: string[], endpoint: string, projectDir: string): Promise<void> {
  const env = {
    ...process.env,
    AWS_ENDPOINT_URL: endpoint,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  };
  const cdklocal = join(projectRoot, 'node_modules', '.bin', 'cdklocal');
  return new Promise((resolve, reject) => {
    // Its own process group, so that stopping the command also stops the app it synthesizes.
    const child = spawn(cdklocal, args, {
      cwd: projectDir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    trackChild(child, { processGroup: true });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`cdklocal ${args[0]} exited with ${code}`)),
    );
  });
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

/**
 * Compares the deployed queues, tables, buckets and SES identities with the template and
 * applies what is missing. Needed on emulators whose CloudFormation ignores some properties
 * (MiniStack drops DynamoDB TTL and PITR); a no-op where everything is in force. A bucket the
 * stack lacks, or an SES identity that exists and may not send, is an error.
 */
export async function enforceTemplateSettings(
  endpoint: string,
  template: Template,
  stackName: string = STACK_NAME,
): Promise<string[]> {
  const config = { endpoint, region, credentials };
  const cloudFormation = new CloudFormationClient(config);
  const sqs = new SQSClient(config);
  const dynamodb = new DynamoDBClient(config);
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  const ses = new SESv2Client(config);
  try {
    const { StackResources = [] } = await cloudFormation.send(
      new DescribeStackResourcesCommand({ StackName: stackName }),
    );
    const physical = new Map(
      StackResources.map((r) => [r.LogicalResourceId ?? '', r.PhysicalResourceId ?? '']),
    );
    const repairs: string[] = [];
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      const id = physical.get(logicalId);
      if (!id) continue;
      if (resource.Type === 'AWS::SQS::Queue')
        repairs.push(...(await enforceRedrive(sqs, id, resource, physical)));
      if (resource.Type === 'AWS::DynamoDB::Table')
        repairs.push(...(await enforceTableSettings(dynamodb, id, resource)));
      // Throws NotFound when the emulator's CloudFormation reported a bucket it did not create.
      if (resource.Type === 'AWS::S3::Bucket') await s3.send(new HeadBucketCommand({ Bucket: id }));
      if (resource.Type === 'AWS::SES::EmailIdentity')
        repairs.push(...(await enforceSenderIdentity(ses, id)));
    }
    return repairs;
  } finally {
    cloudFormation.destroy();
    sqs.destroy();
    dynamodb.destroy();
    s3.destroy();
    ses.destroy();
  }
}

async function enforceRedrive(
  sqs: SQSClient,
  queueUrl: string,
  resource: Template['Resources'][string],
  physical: Map<string, string>,
): Promise<string[]> {
  const wanted = resource.Properties?.RedrivePolicy as
    | { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] }; maxReceiveCount: number }
    | undefined;
  if (!wanted) return [];
  const dlqUrl = physical.get(wanted.deadLetterTargetArn['Fn::GetAtt'][0]) ?? '';
  const dlq = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const expected = {
    deadLetterTargetArn: dlq.Attributes?.QueueArn,
    maxReceiveCount: wanted.maxReceiveCount,
  };
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }),
  );
  const actual = JSON.parse(Attributes?.RedrivePolicy ?? '{}') as {
    deadLetterTargetArn?: string;
    maxReceiveCount?: number | string;
  };
  if (
    actual.deadLetterTargetArn === expected.deadLetterTargetArn &&
    Number(actual.maxReceiveCount) === expected.maxReceiveCount
  ) {
    return [];
  }
  const policy = JSON.stringify(expected);
  await sqs.send(
    new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { RedrivePolicy: policy } }),
  );
  return [
    `the redrive policy of ${queueUrl} was ${Attributes?.RedrivePolicy ?? 'missing'}; applied ${policy}`,
  ];
}

async function enforceTableSettings(
  dynamodb: DynamoDBClient,
  tableName: string,
  resource: Template['Resources'][string],
): Promise<string[]> {
  const repairs: string[] = [];
  const ttl = resource.Properties?.TimeToLiveSpecification as
    | { AttributeName: string; Enabled: boolean }
    | undefined;
  if (ttl?.Enabled) {
    const { TimeToLiveDescription } = await dynamodb.send(
      new DescribeTimeToLiveCommand({ TableName: tableName }),
    );
    if (TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
      await dynamodb.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
        }),
      );
      repairs.push(`the emulator dropped TTL on ${tableName}; enabled it on ${ttl.AttributeName}`);
    }
  }
  const pitr = resource.Properties?.PointInTimeRecoverySpecification as
    | { PointInTimeRecoveryEnabled: boolean }
    | undefined;
  if (pitr?.PointInTimeRecoveryEnabled) {
    const { ContinuousBackupsDescription } = await dynamodb.send(
      new DescribeContinuousBackupsCommand({ TableName: tableName }),
    );
    if (
      ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus !==
      'ENABLED'
    ) {
      await dynamodb.send(
        new UpdateContinuousBackupsCommand({
          TableName: tableName,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      );
      repairs.push(`the emulator dropped point-in-time recovery on ${tableName}; enabled it`);
    }
  }
  return repairs;
}

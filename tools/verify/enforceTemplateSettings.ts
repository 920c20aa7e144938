import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
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
import { enforceSenderIdentity } from '../local/enforceSenderIdentity.js';
import { listStackResources } from './listStackResources.js';
import type { TargetClientConfig } from './VerifyTarget.js';

/** The resources of a synthesized template, as far as the settings checks read them. */
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

/**
 * Compares the deployed queues, tables, buckets and SES identities with the template and
 * applies what is missing. Needed on emulators whose CloudFormation ignores some properties
 * (MiniStack drops DynamoDB TTL and PITR); a no-op where everything is in force, as on AWS. A
 * bucket the stack lacks is an error, and so is an SES identity that exists and may not send,
 * unless `requireVerifiedSender` is false (on AWS a new identity waits for its link).
 *
 * @example
 * ```ts
 * const repairs = await enforceTemplateSettings(clientConfigOf(target), template, 'SqsInboxReference');
 * ```
 */
export async function enforceTemplateSettings(
  config: TargetClientConfig,
  template: Template,
  stackName: string,
  requireVerifiedSender = true,
): Promise<string[]> {
  const cloudFormation = new CloudFormationClient(config);
  const sqs = new SQSClient(config);
  const dynamodb = new DynamoDBClient(config);
  const s3 = new S3Client({ ...config, forcePathStyle: config.endpoint !== undefined });
  const ses = new SESv2Client(config);
  try {
    const resources = await listStackResources(cloudFormation, stackName);
    const physical = new Map(
      resources.map((r) => [r.LogicalResourceId ?? '', r.PhysicalResourceId ?? '']),
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
        repairs.push(...(await enforceSenderIdentity(ses, id, requireVerifiedSender)));
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

type Resource = Template['Resources'][string];

async function enforceRedrive(
  sqs: SQSClient,
  queueUrl: string,
  resource: Resource,
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
  resource: Resource,
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

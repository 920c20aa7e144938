import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A function's own role, allowed to write its own log group and nothing else yet, instead of
 * AWSLambdaBasicExecutionRole, whose `logs:*` actions apply to every log group of the account.
 *
 * @example
 * ```ts
 * const role = createFunctionRole(this, 'sqs-inbox consumer ledger', logGroup);
 * ```
 */
export function createFunctionRole(
  scope: Construct,
  description: string,
  logGroup: ILogGroup,
): Role {
  const role = new Role(scope, 'FunctionRole', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description,
  });
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  return role;
}

/**
 * A standard dead-letter queue of 14 days, encrypted, TLS only, that no redrive policy names
 * (an EventBridge target's, a stream mapping's on-failure destination): cdk-nag's SQS3 looks
 * for redrive policies only, so its finding is acknowledged with `reason`.
 *
 * @example
 * ```ts
 * createStandardDeadLetterQueue(this, 'DeadLetterQueue', "The relay's on-failure destination.");
 * ```
 */
export function createStandardDeadLetterQueue(scope: Construct, id: string, reason: string): Queue {
  const queue = new Queue(scope, id, {
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason });
  return queue;
}

/**
 * An alarm on a queue holding anything (visible depth above zero over a minute).
 *
 * @example
 * ```ts
 * depthAboveZeroAlarm(this, 'DeadLettersAlarm', dlq, 'ledger: messages in the DLQ.');
 * ```
 */
export function depthAboveZeroAlarm(
  scope: Construct,
  id: string,
  queue: Queue,
  description: string,
): Alarm {
  return new Alarm(scope, id, {
    alarmDescription: description,
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

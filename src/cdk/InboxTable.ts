import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { InboxAttribute } from '../constants/values.js';

/**
 * Properties of {@link InboxTable}.
 *
 * @example
 * ```ts
 * import { RemovalPolicy } from 'aws-cdk-lib';
 * const props: InboxTableProps = { removalPolicy: RemovalPolicy.DESTROY };
 * ```
 * @public
 */
export interface InboxTableProps {
  /**
   * What happens to the table when the stack is deleted. Inbox entries are what keeps
   * redeliveries from applying twice: keep them unless the data is disposable.
   * @defaultValue `RemovalPolicy.RETAIN`
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The table sqs-inbox keeps its entries in: partition key `pk` (string), on-demand, TTL on
 * `expiresAt` (epoch seconds), point-in-time recovery, AWS-managed encryption. Several
 * consumers may share one: their keys are prefixed by the consumer name.
 *
 * @example
 * ```ts
 * import { RemovalPolicy } from 'aws-cdk-lib';
 * const inbox = new InboxTable(stack, 'Inbox', { removalPolicy: RemovalPolicy.DESTROY });
 * ```
 * @public
 */
export class InboxTable extends Table {
  constructor(scope: Construct, id: string, props: InboxTableProps = {}) {
    super(scope, id, {
      partitionKey: { name: InboxAttribute.PartitionKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: InboxAttribute.ExpiresAt,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }
}

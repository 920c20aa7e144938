import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { OutboxAttribute } from '../constants/values.js';

/**
 * Properties of {@link OutboxTable}.
 *
 * @example
 * ```ts
 * import { RemovalPolicy } from 'aws-cdk-lib';
 * const props: OutboxTableProps = { removalPolicy: RemovalPolicy.DESTROY };
 * ```
 * @public
 */
export interface OutboxTableProps {
  /**
   * What happens to the table when the stack is deleted. Its items are the last record of
   * messages the relay may not have sent yet.
   * @defaultValue `RemovalPolicy.RETAIN`
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The table `tx.publish` writes outgoing messages to: partition key `pk` (string), on-demand,
 * a stream of new images (the relay's feed), TTL on `expiresAt`, point-in-time recovery,
 * AWS-managed encryption. Only the library writes it.
 *
 * @example
 * ```ts
 * import { RemovalPolicy } from 'aws-cdk-lib';
 * const outbox = new OutboxTable(stack, 'Outbox', { removalPolicy: RemovalPolicy.DESTROY });
 * ```
 * @public
 */
export class OutboxTable extends Table {
  constructor(scope: Construct, id: string, props: OutboxTableProps = {}) {
    super(scope, id, {
      partitionKey: { name: OutboxAttribute.PartitionKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      stream: StreamViewType.NEW_IMAGE,
      timeToLiveAttribute: OutboxAttribute.ExpiresAt,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }
}

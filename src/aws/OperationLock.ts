import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { InboxAttribute, OPERATION_ITEM_PREFIX } from '../constants/values.js';

/**
 * The partition key of an operation's lock in the inbox table. A leading `#` is no entry's:
 * consumers are never empty, so an entry's pk never starts with its separator.
 *
 * @example
 * ```ts
 * operationLockPk('dlq', dlqArn); // '#ops#lock#dlq#arn:aws:sqs:…'
 * ```
 */
export function operationLockPk(kind: string, resource: string): string {
  return `${OPERATION_ITEM_PREFIX}lock#${kind}#${resource}`;
}

/** The lock item's attributes besides its key and TTL. */
const OWNER = 'owner';
const LEASE_UNTIL = 'leaseUntilMillis';

/**
 * A write's condition with the names and values it uses, and only those: DynamoDB refuses a
 * name or value the expression does not use.
 */
interface LockCondition {
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** Taken when no lock is there, when it is this run's, or when its holder's lease lapsed. */
function takeCondition(owner: string, nowMillis: number): LockCondition {
  return {
    ConditionExpression: 'attribute_not_exists(#pk) OR #owner = :owner OR #until < :now',
    ExpressionAttributeNames: {
      '#owner': OWNER,
      '#pk': InboxAttribute.PartitionKey,
      '#until': LEASE_UNTIL,
    },
    ExpressionAttributeValues: { ':owner': owner, ':now': nowMillis },
  };
}

/**
 * Held by this run: a renewal only extends this run's own lease; once another run took the lock
 * (after this run's lease lapsed) or took and released it, the item is not this run's and the
 * renewal fails. A release deletes only this run's lock too.
 */
function ownCondition(owner: string): LockCondition {
  return {
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { '#owner': OWNER },
    ExpressionAttributeValues: { ':owner': owner },
  };
}

/**
 * One operator run at a time on one resource (a DLQ): a lease item in the inbox table, taken by
 * a conditional put that succeeds only when no other run's lease is live, renewed only while
 * the item still names this run, released by its owner. A killed run's lease lapses
 * `leaseMillis` after its last renewal (the redrive's: two minutes), then the next run takes the
 * lock; the item itself expires by TTL a day later.
 *
 * @example
 * ```ts
 * const lock = new OperationLock(client, tableName, operationLockPk('dlq', arn), operationId);
 * if (!(await lock.acquire(Date.now(), 120_000))) throw new Error('another run holds it');
 * ```
 */
export class OperationLock {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    readonly pk: string,
    readonly owner: string,
  ) {}

  /** Takes the lease until `nowMillis + leaseMillis`; false when another run holds a live one. */
  acquire(nowMillis: number, leaseMillis: number): Promise<boolean> {
    return this.put(nowMillis, leaseMillis, takeCondition(this.owner, nowMillis));
  }

  /**
   * Extends this run's lease to `nowMillis + leaseMillis`; false when the lock is no longer this
   * run's (another run took it, or took and released it, after this run's lease lapsed).
   */
  renew(nowMillis: number, leaseMillis: number): Promise<boolean> {
    return this.put(nowMillis, leaseMillis, ownCondition(this.owner));
  }

  private async put(
    nowMillis: number,
    leaseMillis: number,
    condition: LockCondition,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            [InboxAttribute.PartitionKey]: this.pk,
            [OWNER]: this.owner,
            [LEASE_UNTIL]: nowMillis + leaseMillis,
            [InboxAttribute.ExpiresAt]: Math.floor((nowMillis + leaseMillis) / 1000) + 86_400,
          },
          ...condition,
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  /** Gives the lease back, if this run still holds it. */
  async release(): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { [InboxAttribute.PartitionKey]: this.pk },
          ...ownCondition(this.owner),
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

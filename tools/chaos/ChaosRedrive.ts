import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { InboxEnvironment, inboxPk } from 'sqs-inbox/constants';
import type { InvariantResult } from '../local/checkInvariants.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';
import type { UpstreamDelivery } from '../local/UpstreamDelivery.js';
import type { ChaosConsumer, ChaosMessage } from './ChaosTraffic.js';

/**
 * The operator's DLQ redrive, during the chaos run: committed events are sent back to their
 * source queue as SQS's redrive sends them — the same body (for the ledger and the inventory,
 * the SNS or EventBridge envelope they were delivered in), a new messageId and, on a FIFO
 * queue, the same group with a new deduplication id (SQS uses the DLQ copy's messageId). A
 * committed message reaches a DLQ when every receive after its commit ends before the delete
 * (the library's last-receive dead-lettering never takes a committed one); the hop through
 * the DLQ itself changes nothing the consumer sees, so it is not made here (the integration
 * test `redrive.test.ts` makes the real one, redrive policy included). Every redriven event
 * must be acknowledged as a duplicate: its probe counter stays at one.
 *
 * @example
 * ```ts
 * const redrive = new ChaosRedrive(clients, documentClient, mappings, seededRandom(7));
 * await redrive.step(traffic.sentMessages(), 3);
 * ```
 */
export class ChaosRedrive {
  readonly #delivery: UpstreamDelivery<ChaosConsumer>;
  readonly #documents: DynamoDBDocumentClient;
  readonly #mappings: Readonly<Record<ChaosConsumer, LocalMapping>>;
  readonly #random: () => number;
  /** Inbox keys redriven so far. */
  readonly redriven = new Set<string>();

  constructor(
    delivery: UpstreamDelivery<ChaosConsumer>,
    documents: DynamoDBDocumentClient,
    mappings: Readonly<Record<ChaosConsumer, LocalMapping>>,
    random: () => number,
  ) {
    this.#delivery = delivery;
    this.#documents = documents;
    this.#mappings = mappings;
    this.#random = random;
  }

  /** Redrives up to `count` events picked at random among `sent` that have committed. */
  async step(sent: readonly ChaosMessage[], count: number): Promise<void> {
    for (let tries = 0, done = 0; tries < 4 * count && done < count && sent.length > 0; tries++) {
      const message = sent[Math.floor(this.#random() * sent.length)];
      const pk = message === undefined ? undefined : this.#pkOf(message);
      if (message === undefined || pk === undefined || this.redriven.has(pk)) continue;
      if (!(await this.#committed(message.consumer, pk))) continue;
      await this.#redrive(message);
      this.redriven.add(pk);
      done++;
    }
  }

  /** The invariant: redriven committed events were never applied again. */
  async check(probeTable: string): Promise<InvariantResult> {
    const twice: string[] = [];
    for (const pk of this.redriven) {
      const { Item } = await this.#documents.send(
        new GetCommand({ TableName: probeTable, Key: { pk }, ConsistentRead: true }),
      );
      if (Number(Item?.commits) !== 1) twice.push(pk);
    }
    return {
      name: 'committed messages redriven from the DLQ (new messageId) were not applied again',
      holds: this.redriven.size > 0 && twice.length === 0,
      detail:
        twice.length > 0
          ? `${twice.length} applied again: ${twice.slice(0, 3).join(', ')}`
          : `${this.redriven.size} redriven, each committed once`,
    };
  }

  /** Each consumer's source queue, by consumer. */
  queueUrls(): Record<ChaosConsumer, string> {
    const { ledger, inventory, notifier, counter } = this.#mappings;
    return {
      ledger: ledger.queueUrl,
      inventory: inventory.queueUrl,
      notifier: notifier.queueUrl,
      counter: counter.queueUrl,
    };
  }

  #pkOf(message: ChaosMessage): string | undefined {
    try {
      const { eventId } = JSON.parse(message.body) as { eventId?: unknown };
      const consumer = this.#mappings[message.consumer].environment[InboxEnvironment.Consumer];
      return typeof eventId === 'string' && consumer ? inboxPk(consumer, eventId) : undefined;
    } catch {
      return undefined; // a malformed message: never committed
    }
  }

  async #committed(consumer: ChaosConsumer, pk: string): Promise<boolean> {
    const table = this.#mappings[consumer].environment[InboxEnvironment.TableName];
    const { Item } = await this.#documents.send(
      new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }),
    );
    return Item !== undefined;
  }

  async #redrive(message: ChaosMessage): Promise<void> {
    await this.#delivery.redeliver(message);
  }
}

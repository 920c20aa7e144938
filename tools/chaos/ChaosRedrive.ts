import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { InboxEnvironment, InboxStatus, inboxPk } from 'sqs-inbox/constants';
import type { InvariantResult } from '../local/InvariantResult.js';
import type { LocalClients } from '../local/localClients.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';
import type { UpstreamDelivery } from '../local/UpstreamDelivery.js';
import type { ChaosConsumer, ChaosMessage } from './ChaosTraffic.js';
import type { CommandRun, OperatorCommand } from './operatorCommand.js';

/** A copy the operator's redrive found in a DLQ, and what the command did with it. */
interface DeadCopy {
  readonly consumer: ChaosConsumer;
  readonly pk: string;
  /** Its key had committed when the copy reached the DLQ: the command must never send it. */
  readonly committed: boolean;
  outcome?: { readonly action: string; readonly decision: string };
}

/** Where the copies come from, and where the command runs. */
export interface ChaosRedriveParts {
  readonly delivery: UpstreamDelivery<ChaosConsumer>;
  readonly clients: Pick<LocalClients, 'sqs'>;
  readonly documents: DynamoDBDocumentClient;
  readonly mappings: Readonly<Record<ChaosConsumer, LocalMapping>>;
  readonly command: OperatorCommand;
  readonly random: () => number;
}

/** How recent a message must be to be taken as one still on its way (not committed yet). */
const RECENT_MESSAGES = 60;

/**
 * The operator's DLQ redrive, during the chaos run, with the package's own command. Events reach
 * a DLQ as the redrive policy moves them (the same body as delivered — the SNS or EventBridge
 * envelope — and, on a FIFO DLQ, the same group; no `inbox.*` attributes, so the operator names
 * the source queue): committed ones, as when every receive after the commit ended before the
 * delete, and ones not committed yet, as when one copy of an event is moved while another is
 * still being processed. Then `sqs-inbox dlq redrive --apply` (a child process, see
 * {@link OperatorCommand}) decides each by its inbox entry. The invariants: no copy of a
 * committed event was sent back, every copy left its DLQ (deleted as applied, or sent back and
 * then consumed), and every such event was applied exactly once (its probe counter is one).
 * Malformed messages in the same DLQs are the command's to keep.
 *
 * @example
 * ```ts
 * const redrive = new ChaosRedrive({ delivery, clients, documents, mappings, command, random });
 * await redrive.round(traffic.sentMessages(), { committed: 6, onTheirWay: 2 });
 * ```
 */
export class ChaosRedrive {
  readonly #parts: ChaosRedriveParts;
  /** The copies put in a DLQ, by their DLQ message id. */
  readonly #copies = new Map<string, DeadCopy>();
  readonly #keys = new Set<string>();
  readonly #failures: string[] = [];
  #runs = 0;

  constructor(parts: ChaosRedriveParts) {
    this.#parts = parts;
  }

  /** Events put in a DLQ so far. */
  get deadLettered(): number {
    return this.#copies.size;
  }

  /**
   * One operator round: `counts.committed` committed events and `counts.onTheirWay` not
   * committed yet put in their DLQs, then the command run on every DLQ that holds a copy not
   * dealt with.
   */
  async round(
    sent: readonly ChaosMessage[],
    counts: { readonly committed: number; readonly onTheirWay: number },
  ): Promise<void> {
    try {
      await this.#deadLetter(sent, counts.committed, true);
      await this.#deadLetter(sent.slice(-RECENT_MESSAGES), counts.onTheirWay, false);
      await this.runCommand();
    } catch (error) {
      // The run goes on: the invariant reports the first failure.
      this.#failures.push(`a round failed: ${error instanceof Error ? error.message : error}`);
    }
  }

  /** Runs the command on each DLQ holding a copy not dealt with; answers how many it sent back. */
  async runCommand(): Promise<number> {
    const pending = new Set(
      [...this.#copies.values()].filter((c) => !c.outcome).map((c) => c.consumer),
    );
    const runs = await Promise.all(
      [...pending].map((consumer) => this.#parts.command.redrive(this.#parts.mappings[consumer])),
    );
    return runs.reduce((sum, run) => sum + this.#record(run), 0);
  }

  /** The copies the command has not yet deleted or sent back. */
  pending(): number {
    return [...this.#copies.values()].filter((copy) => !copy.outcome).length;
  }

  /** The invariants of the operator's redrive (after the queues drained). */
  async check(probeTable: string): Promise<InvariantResult[]> {
    const copies = [...this.#copies.values()];
    const left = copies.filter((copy) => !copy.outcome);
    const resent = copies.filter((copy) => copy.committed && copy.outcome?.action === 'sent');
    const deleted = copies.filter((copy) => copy.outcome?.action === 'deleted').length;
    const sentBack = copies.filter((copy) => copy.outcome?.action === 'sent').length;
    const twice = await this.#appliedTwice(probeTable);
    return [
      {
        name: 'operator redrive with `sqs-inbox dlq redrive --apply`: committed events deleted from their DLQ unsent, the others sent back, none left',
        holds:
          this.#failures.length === 0 &&
          left.length === 0 &&
          resent.length === 0 &&
          deleted > 0 &&
          sentBack > 0,
        detail:
          this.#failures[0] ??
          `${copies.length} in DLQs over ${this.#runs} runs of the command: ${deleted} deleted (already applied), ${sentBack} sent back, ${left.length} left, ${resent.length} committed ones sent back`,
        figures: { deadLettered: copies.length, deleted, sentBack, left: left.length },
      },
      {
        name: 'every event the operator redrove was applied exactly once (probe counter = 1), committed or not when it reached the DLQ',
        holds: this.#keys.size > 0 && twice.length === 0,
        detail:
          twice.length > 0
            ? `${twice.length} not applied exactly once: ${twice.slice(0, 3).join(', ')}`
            : `${this.#keys.size} events, each committed once`,
      },
    ];
  }

  /** Puts up to `count` events of `among` in their DLQs: committed ones, or ones not yet. */
  async #deadLetter(among: readonly ChaosMessage[], count: number, committed: boolean) {
    for (let tries = 0, done = 0; tries < 4 * count && done < count && among.length > 0; tries++) {
      const message = among[Math.floor(this.#parts.random() * among.length)];
      const pk = message?.expectedError === undefined ? this.#pkOf(message) : undefined;
      if (message === undefined || pk === undefined || this.#keys.has(pk)) continue;
      if ((await this.#committed(message.consumer, pk)) !== committed) continue;
      const dlqMessageId = await this.#moveToDeadLetterQueue(message);
      this.#keys.add(pk);
      this.#copies.set(dlqMessageId, { consumer: message.consumer, pk, committed });
      done++;
    }
  }

  /** The copy a redrive-policy move makes: the body as delivered, its group, a new message. */
  async #moveToDeadLetterQueue(message: ChaosMessage): Promise<string> {
    const delivered = await this.#parts.delivery.delivered(message);
    const queueUrl = this.#parts.mappings[message.consumer].deadLetterQueueUrl;
    const fifo = queueUrl.endsWith('.fifo');
    const { MessageId } = await this.#parts.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: delivered.body,
        ...(fifo
          ? { MessageGroupId: delivered.groupId, MessageDeduplicationId: randomUUID() }
          : {}),
      }),
    );
    if (!MessageId) throw new Error(`SQS gave no message id for a copy in ${queueUrl}`);
    return MessageId;
  }

  /** Takes in what one run of the command did; answers how many copies it sent back. */
  #record(run: CommandRun): number {
    this.#runs++;
    // 0: nothing kept; 1: something kept (the malformed messages are): both are answers.
    if (run.code !== 0 && run.code !== 1) {
      this.#failures.push(
        `the command exited ${run.code}: ${run.stderr.trim().split('\n').at(-1)}`,
      );
    }
    let sentBack = 0;
    for (const line of run.lines) {
      const copy = this.#copies.get(line.dlqMessageId);
      if (copy === undefined || (line.action !== 'deleted' && line.action !== 'sent')) continue;
      copy.outcome = { action: line.action, decision: line.decision };
      if (line.action === 'sent') sentBack++;
    }
    return sentBack;
  }

  async #appliedTwice(probeTable: string): Promise<string[]> {
    const twice: string[] = [];
    for (const pk of this.#keys) {
      const { Item } = await this.#parts.documents.send(
        new GetCommand({ TableName: probeTable, Key: { pk }, ConsistentRead: true }),
      );
      if (Number(Item?.commits) !== 1) twice.push(pk);
    }
    return twice;
  }

  #pkOf(message: ChaosMessage | undefined): string | undefined {
    if (message === undefined) return undefined;
    try {
      const { eventId } = JSON.parse(message.body) as { eventId?: unknown };
      const consumer =
        this.#parts.mappings[message.consumer].environment[InboxEnvironment.Consumer];
      return typeof eventId === 'string' && consumer ? inboxPk(consumer, eventId) : undefined;
    } catch {
      return undefined; // a malformed message: never committed
    }
  }

  async #committed(consumer: ChaosConsumer, pk: string): Promise<boolean> {
    const table = this.#parts.mappings[consumer].environment[InboxEnvironment.TableName];
    const { Item } = await this.#parts.documents.send(
      new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }),
    );
    return Item?.status === InboxStatus.Completed;
  }
}

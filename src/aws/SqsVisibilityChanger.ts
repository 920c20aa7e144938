import { ChangeMessageVisibilityBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';
import { queueUrlOfArn } from './queueUrlOfArn.js';

/** SQS's limit on the entries of one `ChangeMessageVisibilityBatch`. */
const ENTRIES_PER_CALL = 10;

/**
 * One record's new visibility timeout, counted from now.
 *
 * @example
 * ```ts
 * const change: VisibilityChange = { record, visibilityTimeoutSeconds: 30 };
 * ```
 */
export interface VisibilityChange {
  readonly record: SQSRecord;
  readonly visibilityTimeoutSeconds: number;
}

/**
 * What became of a batch's changes: the records SQS changed, and the others counted by why
 * (SQS's error code, the SDK error's name, or `NoQueueUrl` for a record without an SQS ARN).
 *
 * @example
 * ```ts
 * const { changed, failedByCode } = await changer.change(changes, signal);
 * ```
 */
export interface VisibilityChanges {
  readonly changed: ReadonlySet<SQSRecord>;
  readonly failedByCode: Readonly<Record<string, number>>;
}

/**
 * Changes the visibility of records in their own queue (derived from each record's
 * `eventSourceARN`) with `ChangeMessageVisibilityBatch`, ten entries a call, the calls at once.
 * It never throws: a refused entry (`Failed[]`) or a failed call is counted by its code, and the
 * record keeps the visibility SQS gave it. The client is built on first use, never at import.
 *
 * @example
 * ```ts
 * const changer = new SqsVisibilityChanger(sqsClient);
 * const { changed } = await changer.change([{ record, visibilityTimeoutSeconds: 20 }], signal);
 * ```
 */
export class SqsVisibilityChanger {
  #client: SQSClient | undefined;

  constructor(client?: SQSClient) {
    this.#client = client;
  }

  /** Sends the changes; `signal` abandons the calls still running (their records count failed). */
  async change(
    changes: readonly VisibilityChange[],
    signal: AbortSignal,
  ): Promise<VisibilityChanges> {
    const changed = new Set<SQSRecord>();
    const failedByCode: Record<string, number> = {};
    const fail = (code: string, count: number) => {
      failedByCode[code] = (failedByCode[code] ?? 0) + count;
    };
    const calls = [...byQueueUrl(changes, fail)].flatMap(([queueUrl, queued]) =>
      chunks(queued).map((chunk) => this.#send(queueUrl, chunk, signal)),
    );
    for (const { chunk, failedIds, error } of await Promise.all(calls)) {
      chunk.forEach(({ record }, index) => {
        const code = error ?? failedIds.get(String(index));
        if (code === undefined) changed.add(record);
        else fail(code, 1);
      });
    }
    return { changed, failedByCode };
  }

  async #send(queueUrl: string, chunk: readonly VisibilityChange[], signal: AbortSignal) {
    // Built on first use; a stalled call times out rather than hold the batch's answer. The queue
    // URL is derived from the ARN and names AWS's host: the client's own endpoint (the region's,
    // FIPS, or `AWS_ENDPOINT_URL_SQS` on an emulator) must carry it, not the URL's host.
    this.#client ??= new SQSClient({
      requestHandler: BOUNDED_REQUEST_HANDLER,
      useQueueUrlAsEndpoint: false,
    });
    const command = new ChangeMessageVisibilityBatchCommand({
      QueueUrl: queueUrl,
      Entries: chunk.map(({ record, visibilityTimeoutSeconds }, index) => ({
        Id: String(index),
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: visibilityTimeoutSeconds,
      })),
    });
    try {
      const { Failed = [] } = await this.#client.send(command, { abortSignal: signal });
      const failedIds = new Map(Failed.map((entry) => [entry.Id ?? '', entry.Code ?? 'Failed']));
      return { chunk, failedIds, error: undefined };
    } catch (error) {
      return { chunk, failedIds: new Map<string, string>(), error: errorCode(error) };
    }
  }
}

/** The changes by their record's queue URL; a record without one is failed at once. */
function byQueueUrl(
  changes: readonly VisibilityChange[],
  fail: (code: string, count: number) => void,
): Map<string, VisibilityChange[]> {
  const queues = new Map<string, VisibilityChange[]>();
  for (const change of changes) {
    const queueUrl = queueUrlOfArn(change.record.eventSourceARN);
    if (queueUrl === undefined) {
      fail('NoQueueUrl', 1);
      continue;
    }
    // Pushed, not copied: a batch of 10,000 records would copy 50 million entries.
    const queued = queues.get(queueUrl);
    if (queued) queued.push(change);
    else queues.set(queueUrl, [change]);
  }
  return queues;
}

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += ENTRIES_PER_CALL) {
    result.push(items.slice(start, start + ENTRIES_PER_CALL));
  }
  return result;
}

/** An SDK error by its code (`AccessDenied`, `ThrottlingException`…), anything else by type. */
function errorCode(error: unknown): string {
  if (error instanceof Error) return error.name;
  return 'NonErrorThrown';
}

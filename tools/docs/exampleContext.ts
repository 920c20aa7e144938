/**
 * The names the API reference's examples use without declaring them, each with one meaning:
 * what a reader has in their own code at that point (the event, the store, the stack). The docs
 * check compiles every `@example` with these and the package's exports in scope (see
 * CONTRIBUTING.md, "Examples in TSDoc"); an example that needs anything else declares it above a
 * `// ---cut---` line, which the site does not show. No imports here: what a reader must import,
 * an example shows.
 */
import type { Stack } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type {
  BatchProcessor,
  DynamoDBInboxStore,
  InboxLogger,
  InboxMessage,
  MessageHandler,
  RecordOutcome,
  StepFunction,
  TransactionBuilder,
} from 'sqs-inbox';
import type { InboxConsumer } from 'sqs-inbox/cdk';
import type {
  BatchRun,
  InboxTest,
  InMemoryDynamoDB,
  InMemoryQueues,
  TestClock,
} from 'sqs-inbox/testing';
import { z } from 'zod';

/** The message body of the examples: a payment to apply to an account once. */
export const PaymentSchema = z.object({
  eventId: z.string(),
  accountId: z.string(),
  paymentId: z.string(),
  amountCents: z.number().int(),
  currency: z.string(),
});
/** A payment, as {@link PaymentSchema} parses it. */
export type Payment = z.infer<typeof PaymentSchema>;

// What a Lambda function has: its event, one of its records, its context, a caught error.
export declare const event: SQSEvent;
export declare const record: SQSRecord;
export declare const context: Context;
export declare const error: unknown;
export declare const logger: InboxLogger;

// What a consumer built with sqs-inbox has.
export declare const store: DynamoDBInboxStore;
export declare const handler: MessageHandler<Payment>;
export declare const processor: BatchProcessor;
export declare const message: InboxMessage<Payment>;
export declare const tx: TransactionBuilder;
export declare const step: StepFunction;
export declare const outcome: RecordOutcome;
export declare const outcomes: readonly RecordOutcome[];
export declare const dlqUrl: string;
/** A payment provider whose API takes an idempotency key. */
export declare const psp: {
  charge(
    request: { amountCents: number; idempotencyKey: string },
    options?: { signal?: AbortSignal },
  ): Promise<{ id: string }>;
};
/** The URL of the outbox relay's dead-letter queue (`OutboxRelay`'s, not a consumer's). */
export declare const relayDlqUrl: string;

// What a CDK app has.
export declare const stack: Stack;
export declare const pager: ITopic;
export declare const creditsQueue: IQueue;
/** The consumer the CDK examples build: `new InboxConsumer(stack, 'Ledger', …)`. */
export declare const ledger: InboxConsumer;

// What a test of sqs-inbox/testing has.
export declare const inbox: InboxTest;
export declare const dynamo: InMemoryDynamoDB;
export declare const queues: InMemoryQueues;
export declare const clock: TestClock;
export declare const run: BatchRun;

import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConflictModel } from '../../../bench/conflictModel.js';
import { modelLatency, modelRequest, newTally } from '../../../bench/latencyModel.js';
import { latch } from '../../support/latch.js';

const ACCOUNTS = 'accounts';
const LEDGER = 'ledger';

/**
 * A document client whose requests go through the latency and conflict models into a fake
 * DynamoDB that answers each request when the test opens its latch (no emulator: none
 * implements the conflict rules). `sent` lists the requests that reached it.
 */
function modelledDynamoDB(scale = 0) {
  const model = new ConflictModel(
    new Map([
      [ACCOUNTS, ['accountId']],
      [LEDGER, ['paymentId']],
    ]),
  );
  const tally = newTally();
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  modelLatency(client, scale, tally, model);
  const sent: string[] = [];
  const answers: Array<() => void> = [];
  client.middlewareStack.addRelativeTo(
    (_next: unknown, context: { commandName?: string }) => async () => {
      sent.push(String(context.commandName));
      const [answered, answer] = latch();
      answers.push(answer);
      await answered;
      return { output: { $metadata: {} }, response: {} };
    },
    { name: 'fakeDynamoDB', relation: 'after', toMiddleware: 'benchLatencyModel' },
  );
  /** Answers every request sent so far, and lets their answers reach the callers. */
  const answerAll = async () => {
    for (const answer of answers.splice(0)) answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** Lets requests already made reach the fake DynamoDB. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    documents: DynamoDBDocumentClient.from(client),
    client,
    model,
    tally,
    sent,
    answerAll,
    settle,
  };
}

const credit = (accountId: string) => ({
  Update: {
    TableName: ACCOUNTS,
    Key: { accountId },
    UpdateExpression: 'ADD balanceCents :amount',
    ExpressionAttributeValues: { ':amount': 100 },
  },
});
const entry = (paymentId: string, accountId = 'acc-1') => ({
  Put: { TableName: LEDGER, Item: { paymentId, accountId, amountCents: 100 } },
});
const payment = (paymentId: string, accountId: string) =>
  new TransactWriteCommand({ TransactItems: [entry(paymentId, accountId), credit(accountId)] });

describe('the conflict model', () => {
  it('cancels a transaction that touches an item another one holds, with a TransactionConflict reason at that item and None elsewhere (modelled)', async () => {
    const { documents, sent, tally, answerAll, settle } = modelledDynamoDB();
    const first = documents.send(payment('pay-1', 'acc-1'));
    await settle();
    const second = documents.send(payment('pay-2', 'acc-1'));
    const error = await second.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error).toMatchObject({
      name: 'TransactionCanceledException',
      message:
        'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      ],
    });
    expect(sent).toEqual(['TransactWriteItemsCommand']);
    expect(tally.conflicts).toBe(1);
    await answerAll();
    await expect(first).resolves.toBeDefined();
  });

  it('lets transactions on disjoint items run at once (modelled)', async () => {
    const { documents, sent, tally, answerAll, settle } = modelledDynamoDB();
    const both = [
      documents.send(payment('pay-1', 'acc-1')),
      documents.send(payment('pay-2', 'acc-2')),
    ];
    await settle();
    expect(sent).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
    await answerAll();
    await expect(Promise.all(both)).resolves.toHaveLength(2);
    expect(tally.conflicts).toBe(0);
  });

  it('fails an UpdateItem, a PutItem and a DeleteItem on a held item with TransactionConflictException, and lets reads through (modelled)', async () => {
    const { documents, client, sent, answerAll, settle } = modelledDynamoDB();
    const transaction = documents.send(payment('pay-1', 'acc-1'));
    await settle();
    const writes = [
      documents.send(new UpdateCommand(credit('acc-1').Update)),
      documents.send(new PutCommand(entry('pay-1').Put)),
      documents.send(new DeleteCommand({ TableName: LEDGER, Key: { paymentId: 'pay-1' } })),
      // A marshalled PutItem names the same item as the document client's transaction.
      client.send(new PutItemCommand({ TableName: ACCOUNTS, Item: { accountId: { S: 'acc-1' } } })),
    ];
    for (const write of writes) {
      const error = await write.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TransactionConflictException);
      expect(error).toMatchObject({ message: 'Transaction is ongoing for the item' });
    }
    const read = client.send(
      new GetItemCommand({ TableName: ACCOUNTS, Key: { accountId: { S: 'acc-1' } } }),
    );
    await settle();
    expect(sent).toEqual(['TransactWriteItemsCommand', 'GetItemCommand']);
    await answerAll();
    await Promise.all([transaction, read]);
  });

  it('holds nothing for a single-item write: a transaction on its item goes ahead (modelled)', async () => {
    const { documents, sent, answerAll, settle } = modelledDynamoDB();
    const write = documents.send(new UpdateCommand(credit('acc-1').Update));
    await settle();
    const transaction = documents.send(payment('pay-1', 'acc-1'));
    await settle();
    expect(sent).toEqual(['UpdateItemCommand', 'TransactWriteItemsCommand']);
    await answerAll();
    await Promise.all([write, transaction]);
  });

  it('ends the hold when the transaction answers, so the next one on its items goes ahead (modelled)', async () => {
    const { documents, model, sent, answerAll, settle } = modelledDynamoDB();
    const first = documents.send(payment('pay-1', 'acc-1'));
    await settle();
    expect(model.heldItems).toBe(2);
    await answerAll();
    await first;
    expect(model.heldItems).toBe(0);
    const second = documents.send(payment('pay-2', 'acc-1'));
    await settle();
    expect(sent).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
    await answerAll();
    await expect(second).resolves.toBeDefined();
  });

  it("holds a transaction's items from its start, through its modelled wait, and refuses a conflicting request only after that request's own modelled latency (modelled)", async () => {
    const scale = 2;
    const { documents, sent, answerAll, settle } = modelledDynamoDB(scale);
    const first = documents.send(payment('pay-1', 'acc-1'));
    await settle();
    expect(sent).toEqual([]);
    // Shorter than the transaction's wait: it ends while the transaction has not been sent yet.
    const started = performance.now();
    const write = await documents
      .send(new UpdateCommand(credit('acc-1').Update))
      .catch((caught: unknown) => caught);
    expect(write).toBeInstanceOf(TransactionConflictException);
    expect(sent).toEqual([]);
    const ownMillis = modelRequest('UpdateItemCommand', {}).millis * scale;
    // A lower bound only (timers never fire early), so a loaded machine cannot fail it.
    expect(performance.now() - started).toBeGreaterThanOrEqual(ownMillis - 1);
    while (sent.length === 0) await settle();
    await answerAll();
    await first;
  });
});

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { SimDynamoDB, type SimDynamoDBOptions } from '../../../src/testing/dynamo/SimDynamoDB.js';

/** Wire values, shorter to write. */
export const S = (value: string): AttributeValue => ({ S: value });
export const N = (value: string): AttributeValue => ({ N: value });

/** A fresh simulator with table `t` (`pk` string) and `sorted` (`pk` string, `sk` number). */
export function simWithTables(options: SimDynamoDBOptions = {}): SimDynamoDB {
  const dynamo = new SimDynamoDB(options);
  dynamo.createTable({
    TableName: 't',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  });
  dynamo.createTable({
    TableName: 'sorted',
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'N' },
    ],
  });
  return dynamo;
}

/** What a call throws: its name and message. */
export function thrown(
  call: () => unknown,
): { name: string; message: string } & Record<string, unknown> {
  try {
    call();
  } catch (error) {
    return error as { name: string; message: string };
  }
  throw new Error('expected the call to throw');
}

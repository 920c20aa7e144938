import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/cli/cliOptions.js';
import { consumerFlags, environmentOfFlags } from '../../../src/cli/consumerFlags.js';
import { InboxEnvironment } from '../../../src/constants/values.js';

const ledger = {
  [InboxEnvironment.TableName]: 'ledger-inbox',
  [InboxEnvironment.DeadLetterQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/1/ledger-dlq',
  [InboxEnvironment.OutboxTableName]: 'ledger-outbox',
  [InboxEnvironment.TtlSeconds]: '86400',
  [InboxEnvironment.Sources]: 'sns',
  [InboxEnvironment.Key]: 'field:eventId',
};

describe("consumerFlags and environmentOfFlags, a consumer's variables on the command line", () => {
  it('gives back, read by the command, each variable it was given', () => {
    const { values } = parseCommand('dlq redrive', ['ledger', ...consumerFlags(ledger)], {});

    expect(environmentOfFlags(values)).toEqual(ledger);
  });

  it('names each variable by its flag', () => {
    expect(consumerFlags(ledger)).toEqual([
      '--table',
      'ledger-inbox',
      '--dlq',
      'https://sqs.us-east-1.amazonaws.com/1/ledger-dlq',
      '--outbox-table',
      'ledger-outbox',
      '--ttl-seconds',
      '86400',
      '--sources',
      'sns',
      '--key-from',
      'field:eventId',
    ]);
  });

  it('leaves out a variable absent or empty, and any variable no flag gives', () => {
    const flags = consumerFlags({
      [InboxEnvironment.TableName]: 'ledger-inbox',
      [InboxEnvironment.Sources]: '',
      [InboxEnvironment.Key]: undefined,
      [InboxEnvironment.MaxReceiveCount]: '5',
    });

    expect(flags).toEqual(['--table', 'ledger-inbox']);
  });

  it('reads only the flags given', () => {
    expect(environmentOfFlags({ table: 'ledger-inbox', json: true })).toEqual({
      [InboxEnvironment.TableName]: 'ledger-inbox',
    });
  });

  it("keeps a flag given empty, which overrides the function's variable", () => {
    expect(environmentOfFlags({ sources: '' })).toEqual({ [InboxEnvironment.Sources]: '' });
  });
});

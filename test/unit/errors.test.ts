import { describe, expect, it } from 'vitest';
import {
  DeadLetterSendError,
  FormatVersionError,
  InvalidConfigurationError,
  KeyDerivationError,
  MalformedEventError,
  MessageParseError,
  PayloadMismatchError,
  SchemaValidationError,
  TransactionLimitError,
} from '../../src/errors.js';
import {
  BusinessConditionFailedError,
  InboxError,
  PermanentError,
  TransientStoreError,
} from '../../src/index.js';

describe('error names', () => {
  it.each([
    [new InvalidConfigurationError('concurrency', 0, 'an integer'), 'InvalidConfigurationError'],
    [new MalformedEventError('event.Records', undefined, 'an array'), 'MalformedEventError'],
    [new PermanentError('closed'), 'PermanentError'],
    [
      new MessageParseError('m-1', {
        parser: 'json',
        error: new SyntaxError('bad'),
        bodyLength: 3,
      }),
      'MessageParseError',
    ],
    [
      new SchemaValidationError('m-1', [{ path: 'a', message: 'required' }]),
      'SchemaValidationError',
    ],
    [new KeyDerivationError('m-1', ''), 'KeyDerivationError'],
    [
      new PayloadMismatchError('k', 'h2', { messageId: 'm-0', payloadHash: 'h1' }),
      'PayloadMismatchError',
    ],
    [new TransactionLimitError('sameItem', 'twice', 2, 1), 'TransactionLimitError'],
    [
      new BusinessConditionFailedError({ index: 0, type: 'Update', tableName: 't' }),
      'BusinessConditionFailedError',
    ],
    [new TransientStoreError('Throttling', new Error('slow down')), 'TransientStoreError'],
    [new DeadLetterSendError('https://sqs/q', new Error('denied')), 'DeadLetterSendError'],
    [
      new FormatVersionError('outboxItem', 2, { what: 'An item', fix: 'Upgrade.' }),
      'FormatVersionError',
    ],
  ])('names %s by a string that survives minification', (error, name) => {
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(InboxError);
  });

  it('keeps the class name of a user subclass of PermanentError', () => {
    class AccountClosedError extends PermanentError {}

    expect(new AccountClosedError('closed').name).toBe('AccountClosedError');
    expect(new AccountClosedError('closed')).toBeInstanceOf(PermanentError);
  });

  it('classifies the library’s permanent errors as PermanentError', () => {
    expect(new PayloadMismatchError('k', 'a', { messageId: 'm', payloadHash: 'b' })).toBeInstanceOf(
      PermanentError,
    );
    expect(new TransientStoreError('Timeout', new Error('t'))).not.toBeInstanceOf(PermanentError);
    expect(
      new BusinessConditionFailedError({ index: 1, type: 'Put', tableName: 't' }),
    ).not.toBeInstanceOf(PermanentError);
  });
});

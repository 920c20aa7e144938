import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute } from '../../../src/constants/index.js';
import {
  deadLetterReason,
  NO_REASON_RECORDED,
  sourceQueueArnOf,
} from '../../../src/operations/deadLetterFacts.js';
import { sqsRecord } from '../../support/sqsRecords.js';

const SOURCE = 'arn:aws:sqs:eu-west-1:111122223333:payments';
const OTHER = 'arn:aws:sqs:eu-west-1:111122223333:elsewhere';

function deadLetter(attributes: Record<string, string>, systemAttributes = {}) {
  const record = sqsRecord('{}');
  return {
    ...record,
    attributes: { ...record.attributes, ...systemAttributes },
    messageAttributes: Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [
        name,
        { dataType: 'String', stringValue: value },
      ]),
    ),
  };
}

describe('the facts of a DLQ message', () => {
  it('reads its reason from the library’s inbox.error, from EventBridge’s ERROR_CODE, or says none was recorded', () => {
    expect(
      deadLetterReason(deadLetter({ [DeadLetterAttribute.Error]: 'SchemaValidationError' })),
    ).toBe('SchemaValidationError');
    expect(deadLetterReason(deadLetter({ ERROR_CODE: 'SQS_PERMISSION_DENIED' }))).toBe(
      'eventbridge:SQS_PERMISSION_DENIED',
    );
    expect(deadLetterReason(deadLetter({}))).toBe(NO_REASON_RECORDED);
  });

  it('takes the source queue SQS recorded on a redrive-policy move over an inbox.sourceQueueArn attribute the message carried in', () => {
    const moved = deadLetter(
      { [DeadLetterAttribute.SourceQueueArn]: OTHER },
      { DeadLetterQueueSourceArn: SOURCE },
    );
    expect(sourceQueueArnOf(moved)).toBe(SOURCE);
    expect(sourceQueueArnOf(deadLetter({ [DeadLetterAttribute.SourceQueueArn]: SOURCE }))).toBe(
      SOURCE,
    );
    expect(sourceQueueArnOf(deadLetter({}))).toBeUndefined();
  });
});

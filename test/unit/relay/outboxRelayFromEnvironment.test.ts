import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../src/errors.js';
import { outboxRelayFromEnvironment } from '../../../src/relay/outboxRelayFromEnvironment.js';

describe('outboxRelayFromEnvironment', () => {
  it("reads the relay's dead-letter queue", () => {
    const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq';
    expect(outboxRelayFromEnvironment({ INBOX_RELAY_DEAD_LETTER_QUEUE_URL: url })).toEqual({
      deadLetter: { queueUrl: url },
    });
  });

  it.each([[{}], [{ INBOX_RELAY_DEAD_LETTER_QUEUE_URL: 'relay-dlq' }]])(
    'names the variable when it is missing or no queue URL (%j)',
    (env) => {
      expect(() => outboxRelayFromEnvironment(env)).toThrow(EnvironmentError);
      expect(() => outboxRelayFromEnvironment(env)).toThrow(/INBOX_RELAY_DEAD_LETTER_QUEUE_URL/);
    },
  );
});

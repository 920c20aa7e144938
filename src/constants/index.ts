/**
 * `sqs-inbox/constants`: the names and limits that tooling, dashboards and infrastructure code
 * read — the inbox and outbox tables' attributes and statuses, the dead-letter message
 * attributes, the metric names, the environment contract between the construct and the
 * function, the limits the library enforces, and the functions that derive the ids stored or
 * sent (an entry's partition key, a logged key's hash, an outbox message's id, a step's
 * idempotency key). A handler needs none of them: they are kept out of `sqs-inbox`.
 *
 * All the values live in `values.ts`; this file chooses which are public.
 *
 * @module sqs-inbox/constants
 */

export { inboxPk } from '../core/inboxEntry.js';
export { keyHash } from '../core/loggedKey.js';
export { outboxMessageId } from '../outbox/outboxMessageId.js';
export { stepIdempotencyKey } from '../steps/stepIdempotencyKey.js';
export {
  businessTableVariable,
  CdkContext,
  CONSUMER_NAME_PATTERN,
  DEAD_LETTER_ATTRIBUTE_PREFIX,
  DeadLetterAttribute,
  destinationVariable,
  FORMAT_VERSIONS,
  INBOX_ENVIRONMENT_PREFIX,
  InboxAttribute,
  InboxEnvironment,
  InboxMetric,
  InboxStatus,
  LEASE_LIMITS,
  OUTBOX_LIMITS,
  OutboxAttribute,
  OutboxMessageIdField,
  RETRY_LIMITS,
  SpanAttribute,
  STEP_LIMITS,
  TraceCarrier,
} from './values.js';

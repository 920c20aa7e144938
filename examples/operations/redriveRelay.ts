import { redriveOutbox } from 'sqs-inbox/relay';

// The relay's runbook as code: what the CLI's `outbox redrive --apply` does.
const outcomes = await redriveOutbox({
  deadLetter: { queueUrl: process.env.RELAY_DLQ_URL ?? '' },
});
for (const o of outcomes) console.log(o.status, o.kind, o.outboxIds.join(','), o.reason ?? '');

import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { spawnSqsInbox } from '../cli/spawnSqsInbox.js';
import type { ConsumerName, DemoPlan } from '../local/demoTraffic.js';
import type { InvariantResult } from '../local/InvariantResult.js';
import type { UpstreamDelivery } from '../local/UpstreamDelivery.js';
import type { DeployedConsumer } from './deployedConsumers.js';
import type { TargetClients } from './targetClients.js';

/**
 * The operator's redrive, run as an operator runs it: a copy of a payment the ledger applied —
 * the envelope its queue received, as a redrive policy moves a delivery that outlived its
 * receives while another copy committed — is put in the ledger's DLQ, then
 * `sqs-inbox dlq redrive --function <ledger> --reason none --apply --jsonl` runs against the
 * target. It holds when the CLI exits 0 and deleted the copy as already applied without sending
 * it; the balances and the DLQ checks after it show it had no effect and left nothing behind.
 *
 * @example
 * ```ts
 * const result = await redriveAppliedCopy(clients, consumers.ledger, delivery, plan, environment);
 * ```
 */
export async function redriveAppliedCopy(
  clients: TargetClients,
  ledger: DeployedConsumer,
  delivery: UpstreamDelivery<ConsumerName>,
  plan: DemoPlan,
  environment: NodeJS.ProcessEnv,
): Promise<InvariantResult> {
  const name =
    'dlq redrive (sqs-inbox, the operations CLI): a dead-lettered copy of an applied payment deleted as already applied, never sent again';
  const applied = plan.messages.find(
    (m) => m.consumer === 'ledger' && plan.payments.some((p) => JSON.stringify(p) === m.body),
  );
  if (!applied) return { name, holds: false, detail: 'the plan has no payment to copy' };
  const envelope = await delivery.delivered(applied);
  const { MessageId = '' } = await clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: ledger.deadLetterQueueUrl,
      MessageBody: envelope.body,
      MessageGroupId: envelope.groupId,
      MessageDeduplicationId: randomUUID(),
    }),
  );
  const args = ['dlq', 'redrive', '--function', ledger.functionName, '--reason', 'none'];
  const { code, stdout, stderr } = await spawnSqsInbox([...args, '--apply', '--jsonl'], environment)
    .ended;
  const outcomes = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const copy = outcomes.find((outcome) => outcome.dlqMessageId === MessageId);
  const sent = outcomes.filter((outcome) => outcome.action === 'sent').length;
  const holds =
    code === 0 && copy?.decision === 'already-applied' && copy.action === 'deleted' && sent === 0;
  return {
    name,
    holds,
    detail: holds
      ? `sqs-inbox ${args.join(' ')} --apply: exit 0, the copy ${copy?.decision} and ${copy?.action}, ${sent} sent`
      : `exit ${code}; the copy: ${JSON.stringify(copy ?? 'not seen')}; ${sent} sent; ${stderr.trim().split('\n').slice(-2).join(' ')}`,
  };
}

import type { PaymentNotification } from '../../../functions/notifier/paymentNotification.js';
import type { MessageHandler } from '../../../src/index.js';
import { QUIET_PAYMENT_SUFFIX } from './paymentWorkload.js';

/**
 * The notifier of a world with `steplessRate`: a quiet payment is recorded without a step (no
 * email, no receipt: the step-less path, one transaction and no lease), any other is notified
 * by the reference handler, with its two steps. A key reused by a quiet body then meets the
 * journal another payload's steps left.
 *
 * @example
 * ```ts
 * const handler = quietOrNotified(notifyPayment(services, table), table);
 * ```
 */
export function quietOrNotified(
  notify: MessageHandler<PaymentNotification>,
  notificationsTable: string,
): MessageHandler<PaymentNotification> {
  return (message, tx) => {
    const { body } = message;
    if (!body.paymentId.endsWith(QUIET_PAYMENT_SUFFIX)) return notify(message, tx);
    tx.put({
      TableName: notificationsTable,
      Item: { eventId: body.eventId, paymentId: body.paymentId, quiet: true },
      ConditionExpression: 'attribute_not_exists(eventId)',
    });
  };
}

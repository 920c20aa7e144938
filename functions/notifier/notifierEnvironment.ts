/**
 * The notifier's own settings, which the reference stack sets through the construct's
 * `environment` beside the `INBOX_` ones.
 *
 * @example
 * ```ts
 * const bucket = process.env[NotifierEnvironment.ReceiptsBucket];
 * ```
 */
export const NotifierEnvironment = {
  /** The bucket receipts are written to. */
  ReceiptsBucket: 'NOTIFIER_RECEIPTS_BUCKET',
  /** The verified SES identity emails are sent from. */
  Sender: 'NOTIFIER_SENDER',
} as const;

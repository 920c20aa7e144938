import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { createInboxHandler } from '../shared/createInboxHandler.js';
import { NotifierEnvironment } from './notifierEnvironment.js';
import { notifierConsumer } from './paymentNotification.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the reference stack sets it on the notifier.`);
  return value;
}

// Path-style addressing on an emulator endpoint (bucket subdomains of localhost do not resolve).
const onEmulator = Boolean(process.env.AWS_ENDPOINT_URL ?? process.env.AWS_ENDPOINT_URL_S3);

/** Notifier consumer (standard queue): one email and one receipt per payment notification. */
export const handler = createInboxHandler(
  notifierConsumer({
    ses: new SESv2Client({}),
    s3: new S3Client({ forcePathStyle: onEmulator }),
    receiptsBucket: required(NotifierEnvironment.ReceiptsBucket),
    sender: required(NotifierEnvironment.Sender),
  }),
);

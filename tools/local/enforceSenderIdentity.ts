import {
  CreateEmailIdentityCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';

/**
 * Checks that an SES email identity of the template exists and may send — the notifier's emails
 * are refused (`MessageRejected`) otherwise — and creates it where the emulator's
 * CloudFormation did not. Returns the repairs made; throws when the identity exists and still
 * may not send (on AWS: its verification link was not followed), unless `requireVerified` is
 * false.
 *
 * @example
 * ```ts
 * const repairs = await enforceSenderIdentity(sesv2, 'payments@example.com');
 * ```
 */
export async function enforceSenderIdentity(
  ses: SESv2Client,
  identity: string,
  requireVerified = true,
): Promise<string[]> {
  const repairs: string[] = [];
  let verified = await verifiedForSending(ses, identity);
  if (verified === undefined) {
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: identity }));
    repairs.push(`the emulator did not create the SES identity ${identity}; created it`);
    verified = await verifiedForSending(ses, identity);
  }
  if (!verified && requireVerified)
    throw new Error(
      `the SES identity ${identity} may not send: verify it (follow the link SES mailed to it) or pass -c notifierSender=<a verified address>`,
    );
  return repairs;
}

/**
 * Whether the SES identity may send; undefined when it does not exist.
 *
 * @example
 * ```ts
 * if (!(await verifiedForSending(sesv2, 'payments@example.com'))) console.log('not verified');
 * ```
 */
export async function verifiedForSending(
  ses: SESv2Client,
  identity: string,
): Promise<boolean | undefined> {
  try {
    const found = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
    return found.VerifiedForSendingStatus === true;
  } catch (error) {
    if (error instanceof NotFoundException) return undefined;
    throw error;
  }
}

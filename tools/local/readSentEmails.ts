/** An email an emulator's SES accepted, as far as the invariants read it. */
export interface SentEmail {
  readonly messageId: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly bodyText: string;
}

type MiniStackEmail = {
  MessageId?: string;
  Source?: string;
  To?: string[];
  Subject?: string;
  BodyText?: string;
};
type LocalStackEmail = {
  Id?: string;
  Source?: string;
  Destination?: { ToAddresses?: string[] };
  Subject?: string;
  Body?: { text_part?: string | null };
};

/**
 * Every email the emulator's SES accepted so far: MiniStack keeps them at
 * `/_ministack/ses/messages` (per account), LocalStack at `/_aws/ses`. Throws, naming both
 * paths, on an endpoint that serves neither (real AWS keeps no such list).
 *
 * @example
 * ```ts
 * const emails = await readSentEmails('http://127.0.0.1:4566');
 * ```
 */
export async function readSentEmails(endpoint: string): Promise<SentEmail[]> {
  const base = endpoint.replace(/\/+$/, '');
  const ministack = await fetch(`${base}/_ministack/ses/messages`);
  if (ministack.ok) {
    const { messages = {} } = (await ministack.json()) as {
      messages?: Record<string, MiniStackEmail[]>;
    };
    return Object.values(messages).flat().map(fromMiniStack);
  }
  const localstack = await fetch(`${base}/_aws/ses`);
  if (localstack.ok) {
    const { messages = [] } = (await localstack.json()) as { messages?: LocalStackEmail[] };
    return messages.map(fromLocalStack);
  }
  throw new Error(
    `${endpoint} lists no sent emails (neither /_ministack/ses/messages nor /_aws/ses answered): the notifier's email checks need MiniStack or LocalStack`,
  );
}

function fromMiniStack(email: MiniStackEmail): SentEmail {
  return {
    messageId: email.MessageId ?? '',
    from: email.Source ?? '',
    to: email.To ?? [],
    subject: email.Subject ?? '',
    bodyText: email.BodyText ?? '',
  };
}

function fromLocalStack(email: LocalStackEmail): SentEmail {
  return {
    messageId: email.Id ?? '',
    from: email.Source ?? '',
    to: email.Destination?.ToAddresses ?? [],
    subject: email.Subject ?? '',
    bodyText: email.Body?.text_part ?? '',
  };
}

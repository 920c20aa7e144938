import { inboxConfigFromEnvironment } from 'sqs-inbox';
import type { InboxTest } from 'sqs-inbox/testing';

/**
 * What `inboxConfigFromEnvironment()` gives a function that the construct deployed with the kit's
 * environment plus `environment` — the sources and outbox destinations, which `InboxTest` does not
 * set — over the kit's clients, store, runtime and observability, so that `inbox.run` still
 * tells the steps. `inbox.inboxConfig()` is this without `environment`.
 *
 * @example
 * ```ts
 * const config = configOnTheKit(inbox, { INBOX_DESTINATION_credited: queueUrl });
 * ```
 */
export function configOnTheKit(
  inbox: InboxTest,
  environment: Readonly<Record<string, string>> = {},
): ReturnType<typeof inboxConfigFromEnvironment> {
  const config = inboxConfigFromEnvironment({
    env: { ...inbox.environment, ...environment },
    dynamoDBClient: inbox.dynamo.documentClient,
    sqsClient: inbox.queues.client,
  });
  const { store, runtime, observability } = inbox.options;
  const options = { ...config.options, store, runtime, observability };
  return { ...config, options };
}

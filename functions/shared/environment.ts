/**
 * Reads a required environment variable, failing the cold start with a message that names it:
 * a function deployed without its table names must not start consuming messages.
 */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(
      `Environment variable ${name} is not set; deploy the function with the InboxConsumer construct or set it.`,
    );
  }
  return value;
}

/** The optional inbox settings the InboxConsumer construct passes to every function. */
export function inboxSettings() {
  const ttl = process.env.INBOX_TTL_SECONDS;
  return {
    consumer: requireEnv('INBOX_CONSUMER'),
    ...(ttl ? { ttlSeconds: Number(ttl) } : {}),
    ...(process.env.DEAD_LETTER_QUEUE_URL
      ? { deadLetterQueueUrl: process.env.DEAD_LETTER_QUEUE_URL }
      : {}),
  };
}

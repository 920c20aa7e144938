import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `read` until `done` holds for its value, or fails after `timeoutMillis` naming `what`. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMillis = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMillis;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

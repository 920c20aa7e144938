import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A command as it left the client, before serialisation. */
export interface SentCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/**
 * Records every command a client sends, through the SDK's middleware stack: the test
 * observes real traffic to the emulator, nothing is replaced.
 */
export function recordCommands(client: DynamoDBClient): SentCommand[] {
  const sent: SentCommand[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({
        name: String(context.commandName),
        input: args.input as Record<string, unknown>,
      });
      return next(args);
    },
    { step: 'initialize', name: 'sqsInboxTestRecorder', priority: 'high' },
  );
  return sent;
}

/**
 * Makes the client throw `error()` instead of sending the next `times` commands whose name
 * matches (and whose input `matches`, when given). Used only for faults no emulator produces
 * (TransactionConflict, throttling, 5xx, timeouts); tests that use it say "injected" in their
 * names.
 */
export function injectFault(
  client: DynamoDBClient,
  commandName: string,
  error: () => Error,
  times = Number.POSITIVE_INFINITY,
  matches: (input: Record<string, unknown>) => boolean = () => true,
): { readonly injected: () => number } {
  let injected = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      if (context.commandName === commandName && injected < times && matches(input)) {
        injected++;
        throw error();
      }
      return next(args);
    },
    { step: 'initialize', name: `sqsInboxFault-${commandName}-${Math.random()}`, priority: 'high' },
  );
  return { injected: () => injected };
}

/**
 * Makes the next `times` commands whose name matches execute, then lose their answer: the
 * caller sees the SDK's `TimeoutError` although DynamoDB applied the request. No emulator
 * produces it; tests that use it say "injected" in their names.
 */
export function loseResponse(
  client: DynamoDBClient,
  commandName: string,
  times = 1,
): { readonly injected: () => number } {
  let injected = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName || injected >= times) return next(args);
      injected++;
      await next(args);
      throw Object.assign(new Error(`injected: ${commandName} executed, its answer lost`), {
        name: 'TimeoutError',
      });
    },
    { step: 'initialize', name: `sqsInboxLost-${commandName}-${Math.random()}`, priority: 'high' },
  );
  return { injected: () => injected };
}

import { handleSignals, shutDown } from './shutdown.js';

/**
 * An error whose message tells the user everything (what is wrong, what to do): the command
 * prints that one line, without a stack trace. A missing Python or Java is one.
 *
 * @example
 * ```ts
 * throw new CommandError('Java 17+ is needed for DynamoDB Local: install a JDK (apt-get install openjdk-17-jre-headless).');
 * ```
 */
export class CommandError extends Error {
  // Widened to string so that a subclass names itself (UnknownNodeMajorError, …).
  override readonly name: string = 'CommandError';
}

/**
 * Runs a command-line entry: signals stop it cleanly ({@link handleSignals}), its cleanups run
 * when `main` returns or throws, and it exits with `main`'s code (1 on an error). A
 * {@link CommandError} prints as one line `name: message`; anything else with its stack.
 *
 * @example
 * ```ts
 * await runCommand('npm run emulator', async () => { await serve(); return 0; });
 * ```
 */
export async function runCommand(name: string, main: () => Promise<number>): Promise<never> {
  handleSignals();
  let code = 1;
  try {
    code = await main();
  } catch (error) {
    console.error(error instanceof CommandError ? `${name}: ${error.message}` : error);
  }
  await shutDown();
  process.exit(code);
}

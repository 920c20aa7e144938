import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../tools/emulator/paths.js';
import { markedProcesses } from '../support/markedProcesses.js';
import { run } from '../support/run.js';

/** Each long-running command, and a line it prints once its children are running. */
const COMMANDS = [
  { script: 'emulator', args: [], ready: /Press Ctrl-C to stop/ },
  { script: 'start', args: ['--messages', '400'], ready: /^sending \d+ messages/m },
  { script: 'deploy:local', args: [], ready: /^\[deploy\] deploying /m },
  { script: 'chaos', args: ['--crashes', '50'], ready: /\d+ s: \d+ crashes/ },
  { script: 'bench', args: ['--messages', '4000'], ready: /sqs-inbox benchmark on/ },
  { script: 'bench:retry', args: ['--messages', '10'], ready: /^ {2}policy on:/m },
  {
    script: 'sim',
    args: ['--seeds', '1000000'],
    ready: /^simulating [\d,]+ seeds on \d+ workers/m,
  },
] as const;

/** How long a command may take to print its ready line; the test's timeout leaves room after. */
const READY_MILLIS = 150_000;

/**
 * Starts `npm run <script>` with a marker in its environment, waits for `ready`, then sends the
 * signal to the npm process alone — what `timeout`, a cancelled CI job or a process manager
 * does — and returns the marked processes still alive 15 s after npm exited. A command that
 * never prints its ready line fails with its output, and whatever it started is killed.
 */
async function leftAfterSignal(
  command: (typeof COMMANDS)[number],
  signal: NodeJS.Signals,
): Promise<{ left: string[]; output: string }> {
  const mark = randomUUID();
  const npm = spawn('npm', ['run', command.script, '--', ...command.args], {
    cwd: projectRoot,
    env: { ...process.env, AWS_ENDPOINT_URL: '', SQS_INBOX_TEST_MARK: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // 'exit', not 'close': a process left behind may hold npm's output pipes open forever.
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (command.ready.test(output)) resolve();
    };
    npm.stdout.on('data', onData);
    npm.stderr.on('data', onData);
    npm.once('exit', () => reject(new Error(`npm run ${command.script} ended early:\n${output}`)));
    sleep(READY_MILLIS, undefined, { ref: false }).then(() =>
      reject(
        new Error(
          `npm run ${command.script} did not print ${command.ready} in ${READY_MILLIS} ms:\n${output}`,
        ),
      ),
    );
  });
  try {
    await ready;
    npm.kill(signal);
    // An npm that does not exit is itself a process left running: it is listed below.
    await Promise.race([exited, sleep(30_000)]);
    const deadline = Date.now() + 15_000;
    while (markedProcesses(mark).length > 0 && Date.now() < deadline) await sleep(250);
    return { left: markedProcesses(mark), output };
  } finally {
    for (const line of markedProcesses(mark)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  }
}

/** Runs `npm run <script> -- <args>` to its end; its exit code and what it printed. */
function npmRun(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return run('npm', ['run', '--silent', script, '--', ...args], {
    cwd: projectRoot,
    env: { AWS_ENDPOINT_URL: '', ...env },
  });
}

/** What npm itself prints about this machine's npm configuration, not the command's. */
const withoutNpmWarnings = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('npm warn'))
    .join('\n');

const SCRIPTS = [
  'emulator',
  'start',
  'deploy:local',
  'chaos',
  'sim',
  'bench',
  'bench:init',
  'bench:retry',
  'send',
  'outbox',
  'build',
];

describe('every command', () => {
  it.each(SCRIPTS)('npm run %s -- --help prints its usage and exits 0', async (script) => {
    const { code, output } = await npmRun(script, ['--help']);

    expect(output).toMatch(/usage/i);
    expect(code).toBe(0);
  });

  it.each(SCRIPTS)('npm run %s refuses an unknown option in one line', async (script) => {
    const { code, output } = await npmRun(script, ['--bogus']);

    // Commander's "unknown option", the sqs-inbox command's "Unknown option" (outbox).
    expect(withoutNpmWarnings(output)).toMatch(/^[^\n]*unknown option[^\n]*'?--bogus'?[^\n]*$/i);
    expect(code).not.toBe(0);
  });

  it('names what to install when Java is missing, in one line, and leaves nothing running', async () => {
    const mark = randomUUID();

    const { code, output } = await npmRun('emulator', ['--dynamodb-local'], {
      JAVA: '/nonexistent/java',
      SQS_INBOX_TEST_MARK: mark,
    });

    expect(withoutNpmWarnings(output).split('\n').at(-1)).toBe(
      'npm run emulator: /nonexistent/java was not found. Install Java 17 or later for DynamoDB Local (Debian: apt-get install openjdk-17-jre-headless), or set JAVA to a java executable.',
    );
    expect(code).toBe(1);
    expect(markedProcesses(mark)).toEqual([]);
  });
});

describe.each(['SIGTERM', 'SIGINT'] as const)('%s sent to npm alone', (signal) => {
  it.each(COMMANDS)(
    'stops npm run $script and every process it started',
    async (command) => {
      const { left, output } = await leftAfterSignal(command, signal);

      expect(left, output).toEqual([]);
    },
    240_000,
  );
});

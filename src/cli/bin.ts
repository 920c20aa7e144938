#!/usr/bin/env node
// The `sqs-inbox` command (package.json `bin`). SIGINT and SIGTERM stop a run after the message
// in hand: it releases what it holds and its lock, then exits; a second signal exits at once.
import { runCli } from './runCli.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`sqs-inbox: ${signal}: stopping after the message in hand…\n`);
    controller.abort();
  });
}
// A reader that went away (`… --jsonl | head`): stop as on a signal, releasing what the run
// holds, and write no more to it.
let stdoutOpen = true;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutOpen = false;
  if (!controller.signal.aborted) {
    process.stderr.write('sqs-inbox: the output was closed: stopping after the message in hand…\n');
    controller.abort();
  }
});
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
runCli(process.argv.slice(2), {
  stdout: (text) => {
    if (stdoutOpen) process.stdout.write(text);
  },
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
}).then((code) => {
  process.exitCode = controller.signal.aborted && code === 0 ? 130 : code;
});

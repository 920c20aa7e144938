/**
 * The runtime matrix's entry: runs a command on a pinned Node.js line, installed on demand from
 * the npm registry into `.cache/node/` (see installNode.ts and pinnedNodes.ts).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { delimiter } from 'node:path';
import { CommandError } from '../cli/runCommand.js';
import { onShutdown, trackChild } from '../cli/shutdown.js';
import { checkNodeVersion, type InstalledNode, installNode } from './installNode.js';
import { pinnedNode } from './pinnedNodes.js';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Installs Node.js line `major` if needed, checks that its binary is the pinned release, and
 * runs `command` with that Node.js first on PATH, so `node`, `npx`, `npm` and every child that
 * looks `node` up on PATH (or forks `process.execPath` from one that did) run on it. SIGINT and
 * SIGTERM are passed to the command's process group; resolves to its exit code (128 + the
 * signal's number if a signal ended it).
 *
 * @example
 * ```ts
 * const code = await runOnNode('24', 'npx', ['vitest', 'run', '--project', 'unit']);
 * ```
 */
export async function runOnNode(
  major: string,
  command: string,
  args: readonly string[],
): Promise<number> {
  const node = await installNode(pinnedNode(major));
  await checkNodeVersion(node.nodePath, node.version);
  console.error(`[with-node] Node.js ${node.version} (${node.nodePath})`);
  return runWith(node, command, args);
}

function runWith(node: InstalledNode, command: string, args: readonly string[]): Promise<number> {
  // Its own process group, so a signal reaches the command's workers too, not only the command.
  const child = trackChild(
    spawn(command, args, { stdio: 'inherit', env: environmentOn(node), detached: true }),
    { processGroup: true },
  );
  const forward = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group ended between the check and the kill: nothing is left to stop.
    }
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new CommandError(`${command} was not found on PATH (${node.binDir} first).`)
          : error,
      ),
    );
    child.once('exit', (code, signal) =>
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal])),
    );
  });
  // On a signal, the command's cleanup waits for the child to stop on the forwarded signal.
  const unregister = onShutdown(() => exited.then(() => undefined));
  return exited.finally(() => {
    unregister();
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
  });
}

/** This environment with the Node.js's bin folder first on PATH and npm's node pointed at it. */
function environmentOn(node: InstalledNode): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: [node.binDir, process.env.PATH].filter(Boolean).join(delimiter),
    // npm (and what it spawns) reads these for "the node that runs npm".
    npm_node_execpath: node.nodePath,
    NODE: node.nodePath,
  };
}

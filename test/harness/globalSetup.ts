import type { TestProject } from 'vitest/node';
import { startDynamoDBLocal } from '../../tools/emulator/dynamodbLocal.js';
import { type RunningEmulator, startEmulator } from '../../tools/emulator/emulator.js';

/** The endpoints a test project talks to, handed to tests through `inject('aws')`. */
export interface AwsEndpoints {
  readonly dynamodb: string;
  readonly sqs: string;
  readonly backend: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    aws: AwsEndpoints;
  }
}

/**
 * Starts the backends of a test project once per run and stops them at the end. The
 * `integration` project runs everything on the emulator; the `conformance` project runs the
 * same tests with DynamoDB on DynamoDB Local (the official engine) and SQS on the emulator.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started: RunningEmulator[] = [];
  try {
    const emulator = await startEmulator([
      'dynamodb',
      'dynamodbstreams',
      'sqs',
      'sns',
      'events',
      's3',
      'ses',
      // The redrive's audit reads its caller with sts:GetCallerIdentity.
      'sts',
    ]);
    started.push(emulator);
    let dynamodb = emulator;
    if (project.name === 'conformance') {
      dynamodb = await startDynamoDBLocal();
      started.push(dynamodb);
    }
    project.provide('aws', {
      dynamodb: dynamodb.endpoint,
      sqs: emulator.endpoint,
      backend: `DynamoDB: ${dynamodb.name}; SQS: ${emulator.name}`,
    });
    console.error(
      `[harness] ${project.name}: DynamoDB on ${dynamodb.name}, SQS on ${emulator.name}`,
    );
  } catch (error) {
    await stopAll(started);
    throw error;
  }
  return () => stopAll(started);
}

async function stopAll(started: readonly RunningEmulator[]): Promise<void> {
  await Promise.all(started.map((emulator) => emulator.stop()));
}

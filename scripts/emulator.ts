/**
 * `npm run emulator`: starts the local AWS emulator the tests use (MiniStack, or LocalStack
 * where a Docker engine runs) and DynamoDB Local if asked, prints the endpoint and the
 * variables to export, and serves until Ctrl-C — so that your own tests can point at it.
 */
import { Command } from 'commander';
import { runCommand } from '../tools/cli/runCommand.js';
import { untilStopped } from '../tools/cli/shutdown.js';
import { startDynamoDBLocal } from '../tools/emulator/dynamodbLocal.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { DEPLOY_SERVICES } from '../tools/verify/deployStack.js';

const options = new Command('npm run emulator --')
  .description(
    'Start the local AWS emulator, print the endpoint and the variables to export, serve until Ctrl-C.',
  )
  .option('--dynamodb-local', 'also start DynamoDB Local, the official DynamoDB engine', false)
  .parse()
  .opts<{ dynamodbLocal: boolean }>();

await runCommand('npm run emulator', async () => {
  if (process.env.AWS_ENDPOINT_URL) {
    console.error(
      `npm run emulator: AWS_ENDPOINT_URL is already set (${process.env.AWS_ENDPOINT_URL}); unset it to start an emulator.`,
    );
    return 1;
  }
  const emulator = await startEmulator([...DEPLOY_SERVICES, 'ses']);
  const dynamodbLocal = options.dynamodbLocal ? await startDynamoDBLocal() : undefined;
  console.log(`${emulator.name} is serving on ${emulator.endpoint}`);
  if (dynamodbLocal) console.log(`${dynamodbLocal.name} is serving on ${dynamodbLocal.endpoint}`);
  console.log('\nexport these in the shell that runs your tests:\n');
  const variables = {
    AWS_ENDPOINT_URL: emulator.endpoint,
    // cdklocal (aws-cdk-local) refuses AWS_ENDPOINT_URL without it.
    AWS_ENDPOINT_URL_S3: emulator.endpoint,
    ...(dynamodbLocal ? { AWS_ENDPOINT_URL_DYNAMODB: dynamodbLocal.endpoint } : {}),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };
  for (const [name, value] of Object.entries(variables)) console.log(`export ${name}=${value}`);
  console.log('\nPress Ctrl-C to stop.');
  return untilStopped();
});

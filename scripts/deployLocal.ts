/**
 * `npm run deploy:local`: deploys the reference CDK app to the local emulator (AWS_ENDPOINT_URL
 * when set, else one it starts), checks the settings the emulator's CloudFormation may drop, and
 * prints the outputs. A started emulator keeps serving until Ctrl-C (its state lives in memory);
 * `--exit` stops it once the deployment is verified.
 */
import { Command, InvalidArgumentError } from 'commander';
import { runCommand } from '../tools/cli/runCommand.js';
import { untilStopped } from '../tools/cli/shutdown.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { DEPLOY_SERVICES, deployToEmulator } from '../tools/verify/deployStack.js';

const contextPair = (pair: string, previous: Record<string, string>) => {
  const [name, ...rest] = pair.split('=');
  if (!name || rest.length === 0)
    throw new InvalidArgumentError(`-c takes name=value (given ${JSON.stringify(pair)}).`);
  return { ...previous, [name]: rest.join('=') };
};

const options = new Command('npm run deploy:local --')
  .description('Deploy the reference CDK app to the local emulator and verify it.')
  .option('--exit', 'stop the emulator after deploying (default: keep serving until Ctrl-C)', false)
  .option(
    '-c, --context <name=value>',
    'CDK context, e.g. -c functionTimeoutSeconds=5 -c maxReceiveCount=2',
    contextPair,
    {},
  )
  .parse()
  .opts<{ exit: boolean; context: Record<string, string> }>();

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

await runCommand('npm run deploy:local', async () => {
  const emulator = await startEmulator(DEPLOY_SERVICES);
  console.log(`[deploy:local] emulator: ${emulator.name} at ${emulator.endpoint}`);
  const deployment = await deployToEmulator(emulator.endpoint, { context: options.context });
  if (deployment.repairs.length === 0)
    console.log('[deploy:local] redrive policies, TTL and PITR are in force as deployed');
  console.log('[deploy:local] outputs:');
  for (const [name, value] of Object.entries(deployment.outputs))
    console.log(`  ${name} = ${value}`);
  if (options.exit || process.env.AWS_ENDPOINT_URL) return 0;
  const aws = `AWS_ENDPOINT_URL=${emulator.endpoint} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test aws`;
  const { PaymentsTopicArn, OrdersBusName } = deployment.outputs;
  console.log(
    `[deploy:local] serving on ${emulator.endpoint}; for example, a payment through the topic and an order through the bus:\n` +
      `  ${aws} sns publish --topic-arn ${PaymentsTopicArn} --message-group-id acc-1 --message-deduplication-id "$(date +%s%N)" --message '{"eventId":"e-1","accountId":"acc-1","paymentId":"p-1","amountCents":1250,"currency":"EUR"}'\n` +
      `  ${aws} events put-events --entries '[{"EventBusName":"${OrdersBusName}","Source":"shop.orders","DetailType":"OrderPlaced","Detail":"{\\"eventId\\":\\"e-2\\",\\"orderId\\":\\"o-1\\",\\"lines\\":[{\\"sku\\":\\"sku-apple\\",\\"quantity\\":1}]}"}]'\n` +
      'Press Ctrl-C to stop.',
  );
  return untilStopped();
});

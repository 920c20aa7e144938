/**
 * `npm run deploy:local`: deploys the CDK app to the local emulator (AWS_ENDPOINT_URL when set,
 * else one it starts), checks the settings the emulator's CloudFormation may drop, and prints
 * the outputs. A started emulator keeps serving until Ctrl-C (its state lives in memory);
 * `--exit` stops it once the deployment is verified.
 */
import { parseArgs } from 'node:util';
import { startEmulator } from '../tools/emulator/emulator.js';
import { DEPLOY_SERVICES, deployToEmulator } from '../tools/local/deployToEmulator.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    exit: { type: 'boolean', default: false },
    context: { type: 'string', short: 'c', multiple: true, default: [] },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(
    'usage: npm run deploy:local -- [--exit] [-c name=value ...]\n' +
      '  --exit        stop the emulator after deploying (default: keep serving until Ctrl-C)\n' +
      '  -c name=value CDK context, e.g. -c functionTimeoutSeconds=5 -c maxReceiveCount=2',
  );
  process.exit(0);
}
const context = Object.fromEntries(
  (values.context ?? []).map((pair) => {
    const [name, ...rest] = pair.split('=');
    if (!name || rest.length === 0)
      throw new Error(`-c takes name=value, got ${JSON.stringify(pair)}`);
    return [name, rest.join('=')];
  }),
);

const emulator = await startEmulator(DEPLOY_SERVICES);
const stop = async () => {
  await emulator.stop();
  process.exit(0);
};
try {
  console.log(`[deploy:local] emulator: ${emulator.name} at ${emulator.endpoint}`);
  const deployment = await deployToEmulator(emulator.endpoint, { context });
  if (deployment.repairs.length === 0)
    console.log('[deploy:local] redrive policies, TTL and PITR are in force as deployed');
  console.log('[deploy:local] outputs:');
  for (const [name, value] of Object.entries(deployment.outputs))
    console.log(`  ${name} = ${value}`);
} catch (error) {
  console.error(error);
  await emulator.stop();
  process.exit(1);
}
if (values.exit || process.env.AWS_ENDPOINT_URL) {
  await stop();
} else {
  console.log(
    `[deploy:local] serving on ${emulator.endpoint}; for example:\n` +
      `  AWS_ENDPOINT_URL=${emulator.endpoint} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test aws sqs list-queues\n` +
      'Press Ctrl-C to stop.',
  );
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

import { App, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ReferenceStack } from './stacks/ReferenceStack.js';

const app = new App();
// Optional context (`-c name=value`): used by `npm run deploy:local` and the end-to-end test.
const context = (name: string): string | undefined => app.node.tryGetContext(name);
const functionTimeoutSeconds = context('functionTimeoutSeconds');
const maxReceiveCount = context('maxReceiveCount');
const notifierSender = context('notifierSender');

new ReferenceStack(app, 'SqsInboxReference', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  removalPolicy:
    context('removalPolicy') === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  ...(notifierSender ? { notifierSender } : {}),
  consumerOverrides: {
    ...(functionTimeoutSeconds
      ? { functionTimeout: Duration.seconds(Number(functionTimeoutSeconds)) }
      : {}),
    ...(maxReceiveCount ? { maxReceiveCount: Number(maxReceiveCount) } : {}),
  },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

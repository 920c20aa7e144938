import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { acknowledgeNagFindings } from './nagFindings.js';
import { ReferenceStack } from './stacks/ReferenceStack.js';

const app = new App();
const stack = new ReferenceStack(app, 'SqsInboxReference', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
acknowledgeNagFindings(stack);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

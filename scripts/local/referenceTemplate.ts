import { join } from 'node:path';
import { App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { ReferenceStack } from '../../infra/stacks/ReferenceStack.js';
import { projectRoot } from '../../test/harness/paths.js';

/** A CloudFormation template, as far as the local runner reads it. */
export interface Template {
  readonly Resources: Record<
    string,
    { readonly Type: string; readonly Properties?: Record<string, unknown> }
  >;
}

/**
 * Synthesizes the reference stack in process — the same CDK definitions `cdk deploy` uses —
 * so `npm start` creates exactly the queues, tables and mappings a deployment would.
 */
export function synthesizeReferenceTemplate(settings: {
  functionTimeoutSeconds: number;
  maxReceiveCount: number;
}): Template {
  const app = new App({ outdir: join(projectRoot, '.cache', 'cdk.out.start') });
  const stack = new ReferenceStack(app, 'SqsInboxReference', {
    tableRemovalPolicy: RemovalPolicy.DESTROY,
    consumerOverrides: {
      functionTimeout: Duration.seconds(settings.functionTimeoutSeconds),
      maxReceiveCount: settings.maxReceiveCount,
    },
  });
  return app.synth().getStackByName(stack.stackName).template as Template;
}

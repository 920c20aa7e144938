import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { ReferenceStack } from '../../infra/stacks/ReferenceStack.js';
import { buildRelayFunction } from '../build/relayFunction.mjs';
import { projectRoot } from '../emulator/paths.js';

/** A CloudFormation template, as far as the local runner reads it. */
export interface Template {
  readonly Resources: Record<
    string,
    { readonly Type: string; readonly Properties?: Record<string, unknown> }
  >;
}

/**
 * Synthesizes the reference stack in process — the same CDK definitions `cdk deploy` uses —
 * so `npm start` creates exactly the queues, tables and mappings a deployment would. The
 * outbox relay's function is built first, from the source: the construct deploys it pre-built.
 */
export function synthesizeReferenceTemplate(settings: {
  functionTimeoutSeconds: number;
  maxReceiveCount: number;
}): Template {
  // A directory of its own: `npm start` and `npm run chaos` may synthesize at the same time.
  buildRelayFunction(projectRoot);
  const outdir = mkdtempSync(join(tmpdir(), 'sqs-inbox-cdk-'));
  const app = new App({ outdir });
  const stack = new ReferenceStack(app, 'SqsInboxReference', {
    removalPolicy: RemovalPolicy.DESTROY,
    consumerOverrides: {
      functionTimeout: Duration.seconds(settings.functionTimeoutSeconds),
      maxReceiveCount: settings.maxReceiveCount,
    },
  });
  try {
    return app.synth().getStackByName(stack.stackName).template as Template;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

import { Validations } from 'aws-cdk-lib';
import type { ReferenceStack } from './stacks/ReferenceStack.js';

/**
 * The cdk-nag (AwsSolutions) findings the reference stack accepts, each with its reason.
 * Everything else must pass: `test/infra/ReferenceStack.test.ts` fails on any unacknowledged error.
 */
export function acknowledgeNagFindings(stack: ReferenceStack): void {
  for (const consumer of [stack.ledger, stack.inventory]) {
    Validations.of(consumer.function).acknowledge({
      id: 'AwsSolutions::AwsSolutions-L1',
      reason:
        'Pinned to Node.js 22 on purpose: the library is built and tested for Node 20+ features only, ' +
        'and the runtime moves with the project toolchain rather than with each new Lambda release.',
    });
  }
}

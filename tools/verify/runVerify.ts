import { join } from 'node:path';
import { CommandError } from '../cli/runCommand.js';
import { onShutdown } from '../cli/shutdown.js';
import { startEmulator } from '../emulator/emulator.js';
import { projectRoot } from '../emulator/paths.js';
import { checkInvariants, invariantTargetsOf, type SentEmails } from '../local/checkInvariants.js';
import type { ConsumerName } from '../local/demoTraffic.js';
import type { InvariantResult } from '../local/InvariantResult.js';
import { readSentEmails } from '../local/readSentEmails.js';
import type { UpstreamDelivery } from '../local/UpstreamDelivery.js';
import { awaitVerifiedSender, skipSendingChecks } from './awaitVerifiedSender.js';
import { CdkRunner } from './CdkRunner.js';
import { deployedConsumers, stackOutput } from './deployedConsumers.js';
import {
  cdkArgumentsOf,
  DEPLOY_SERVICES,
  type DeployOptions,
  deployStack,
  STACK_NAME,
} from './deployStack.js';
import { destroyStack, stackStatus } from './destroyStack.js';
import { sendConflicting, sendDemoTraffic, waitUntilSettled } from './driveTraffic.js';
import { printInvariants, runPassed } from './printInvariants.js';
import { redriveAppliedCopy } from './redriveAppliedCopy.js';
import { childEnvironmentOf, type TargetClients, targetClients } from './targetClients.js';
import { manualDestroyCommand, type VerifyTarget } from './VerifyTarget.js';

/** Options of {@link runVerify} (`npm run verify:aws`). */
export interface VerifyOptions {
  /** AWS (profile, region) or the emulator (MiniStack, or `AWS_ENDPOINT_URL`). */
  readonly aws?: {
    readonly region: string;
    readonly profile?: string;
    readonly bootstrap: boolean;
  };
  readonly messages: number;
  readonly duplicates: number;
  readonly seed: number;
  /** Longest wait for the stack to settle after the traffic, in seconds. */
  readonly timeoutSeconds: number;
  /** The notifier's SES sender; on AWS an address whose mailbox the user can open. */
  readonly sender?: string;
  /** How long to wait for the sender's verification on AWS, in minutes. */
  readonly senderWaitMinutes: number;
}

/**
 * Short timeouts so a retried message reaches its DLQ within a minute (5 s function timeout,
 * 30 s visibility, two receives), and every table and bucket deleted with the stack.
 */
export const VERIFY_CONTEXT = {
  functionTimeoutSeconds: '5',
  maxReceiveCount: '2',
  removalPolicy: 'destroy',
} as const;

/** A real destroy takes minutes; a stop waits this long for it. */
const DESTROY_GRACE_MILLIS = 30 * 60_000;
/** SES's mailbox simulator accepts mail from a sandboxed account (a label per payer). */
const SIMULATOR = (accountId: string) => `success+${accountId}@simulator.amazonses.com`;

/**
 * `npm run verify:aws`: deploys the reference stack to a target with `cdk deploy` (cdklocal on
 * the emulator), drives `npm start`'s traffic through its topic and bus (duplicates, upstream
 * retries, poison messages), redrives a DLQ through `sqs-inbox`, checks `npm start`'s
 * invariants against the deployed services, prints the report, and destroys the stack — also
 * when the command is stopped (Ctrl-C). Returns the exit code.
 */
export async function runVerify(options: VerifyOptions): Promise<number> {
  const started = Date.now();
  const target = await targetOf(options);
  const clients = targetClients(target);
  await refuseExistingStack(target, clients).catch((error: unknown) => {
    for (const client of Object.values(clients)) client.destroy();
    throw error;
  });
  const deployOptions: DeployOptions = {
    context: { ...VERIFY_CONTEXT, ...(options.sender ? { notifierSender: options.sender } : {}) },
    outputDir: join(projectRoot, '.cache', `cdk.out.verify-${target.kind}`),
    bootstrap: options.aws?.bootstrap ?? true,
    allowUnverifiedSender: target.kind === 'aws',
    log: (line) => console.log(line),
  };
  const cdk = new CdkRunner(target, projectRoot);
  let delivery: Promise<UpstreamDelivery<ConsumerName>> | undefined;
  let destroyed: Promise<void> | undefined;
  const closeTaps = () =>
    delivery
      ?.then((found) => found.close())
      .catch((error: Error) => console.log(`[destroy] taps: ${error.message}`));
  const destroy = () => {
    destroyed ??= (async () => {
      await closeTaps();
      const cdkArguments = cdkArgumentsOf(target, deployOptions);
      await destroyStack({ cdk, stackName: STACK_NAME, cdkArguments, clients, log: console.log });
    })();
    return destroyed;
  };
  // An emulator this command started stops with it, and the stack with it: no destroy to wait for.
  const ownsEmulator = target.kind === 'emulator' && !process.env.AWS_ENDPOINT_URL;
  onShutdown(ownsEmulator ? () => {} : destroy, {
    graceMillis: DESTROY_GRACE_MILLIS,
    onAbandon: () =>
      console.error(
        `[destroy] given up: ${STACK_NAME} may still exist. Destroy it by hand:\n  ${manualDestroyCommand(target, STACK_NAME)}`,
      ),
  });
  try {
    const { outputs, repairs } = await deployStack(target, { ...deployOptions, cdk });
    console.log(`[verify] deployed ${STACK_NAME} in ${seconds(started)} s`);
    const run = await verifyDeployed(target, clients, outputs, options, {
      onFinding: (finding) => {
        delivery = finding;
      },
      stopping: () => destroyed !== undefined,
    });
    printRepairs(target, repairs);
    printInvariants(run.messagesSent, run.settled, run.results);
    return runPassed(run.settled, run.results) ? 0 : 1;
  } finally {
    const destroyStarted = Date.now();
    await destroy();
    console.log(
      `[verify] destroyed in ${seconds(destroyStarted)} s; the run took ${seconds(started)} s`,
    );
    for (const client of Object.values(clients)) client.destroy();
  }
}

/**
 * Refuses to run when the target already has a stack of the reference stack's name: the run
 * would deploy over it (with `removalPolicy: destroy`) and then destroy it, tables and buckets
 * included. Nothing is registered to destroy yet when it throws.
 */
async function refuseExistingStack(target: VerifyTarget, clients: TargetClients): Promise<void> {
  const status = await stackStatus(clients.cloudFormation, STACK_NAME);
  if (status === undefined) return;
  const where = target.kind === 'emulator' ? target.endpoint : `AWS ${target.region}`;
  throw new CommandError(
    `${STACK_NAME} already exists on ${where} (${status}): verify:aws deploys and destroys a stack of its own and leaves this one alone. If an earlier verify:aws left it behind, destroy it by hand:\n  ${manualDestroyCommand(target, STACK_NAME)}`,
  );
}

async function targetOf(options: VerifyOptions): Promise<VerifyTarget> {
  if (options.aws) {
    const { region, profile } = options.aws;
    return { kind: 'aws', region, ...(profile ? { profile } : {}) };
  }
  const emulator = await startEmulator(DEPLOY_SERVICES);
  console.log(`[verify] emulator: ${emulator.name} at ${emulator.endpoint}`);
  return { kind: 'emulator', endpoint: emulator.endpoint };
}

/** The traffic, the redrive and the invariants, against the deployed stack. */
async function verifyDeployed(
  target: VerifyTarget,
  clients: TargetClients,
  outputs: Readonly<Record<string, string>>,
  options: VerifyOptions,
  taps: {
    readonly onFinding: (delivery: Promise<UpstreamDelivery<ConsumerName>>) => void;
    readonly stopping: () => boolean;
  },
): Promise<{ messagesSent: number; settled: boolean; results: InvariantResult[] }> {
  const consumers = await deployedConsumers(clients, outputs);
  const sender = stackOutput(outputs, 'NotifierSenderAddress');
  const unverified =
    target.kind === 'aws'
      ? await awaitVerifiedSender(
          clients.ses,
          sender,
          (options.sender ? options.senderWaitMinutes : 0) * 60_000,
          console.log,
        )
      : undefined;
  const emailsBefore =
    target.kind === 'emulator' ? (await readSentEmails(target.endpoint)).length : 0;
  const mailbox = target.kind === 'aws' ? { mailboxOf: SIMULATOR } : {};
  const { plan, delivery } = await sendDemoTraffic(
    clients,
    consumers,
    { ...options, ...mailbox },
    taps.onFinding,
    taps.stopping,
  );
  console.log(
    `[verify] sent ${plan.messages.length} messages (${plan.payments.length} payments on the payments topic, ${plan.orders.length} orders on the orders bus, ${plan.duplicates} delivered twice by their upstream, ${plan.malformed.length} malformed, ${plan.conflicting.length} conflicting; seed ${options.seed})`,
  );
  const outbox = {
    table: stackOutput(outputs, 'LedgerOutboxTableName'),
    deadLetterQueueUrl: stackOutput(outputs, 'LedgerOutboxDeadLetterQueueUrl'),
  };
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const settledFirst = await waitUntilSettled(clients, consumers, outbox.table, deadline);
  await sendConflicting(plan, delivery);
  const settled =
    settledFirst && (await waitUntilSettled(clients, consumers, outbox.table, deadline));
  const environment = await childEnvironmentOf(target, clients);
  const redrive = await redriveAppliedCopy(clients, consumers.ledger, delivery, plan, environment);
  const sent: SentEmails =
    target.kind === 'emulator'
      ? {
          emails: (await readSentEmails(target.endpoint)).slice(emailsBefore),
          allowance: new Map(),
        }
      : {
          emails: [],
          allowance: new Map(),
          unreadable: 'AWS keeps no list of the emails SES sent',
        };
  const results = await checkInvariants(
    plan,
    { ...invariantTargetsOf(consumers), outbox },
    clients,
    sent,
  );
  const all = [...results, redrive];
  return {
    messagesSent: plan.messages.length,
    settled,
    results: unverified ? skipSendingChecks(all, unverified) : all,
  };
}

function printRepairs(target: VerifyTarget, repairs: readonly string[]): void {
  const where =
    target.kind === 'emulator' ? `the emulator at ${target.endpoint}` : `AWS ${target.region}`;
  console.log(`\ntarget: ${where}`);
  if (repairs.length === 0) {
    console.log(
      'repairs: none (every redrive policy, TTL and PITR setting was in force as deployed)',
    );
    return;
  }
  console.log(
    `repairs (what the target's CloudFormation dropped, applied after the deploy): ${repairs.length}`,
  );
  for (const repair of repairs) console.log(`  ${repair}`);
}

function seconds(sinceMillis: number): number {
  return Math.round((Date.now() - sinceMillis) / 1000);
}

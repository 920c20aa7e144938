import { InboxMetric } from 'sqs-inbox/constants';
import type { InvariantResult } from '../local/checkInvariants.js';
import type { DemoPlan } from '../local/demoTraffic.js';
import type { ChaosRelay } from './ChaosRelay.js';
import type { ChaosSupervisor } from './ChaosSupervisor.js';
import { FaultKind } from './injectFaults.js';
import {
  CRASH_POINT_LABELS,
  CrashPoint,
  HUNG_BATCH_LATE,
  INBOX_CONDITION_LOST,
} from './workerProtocol.js';

/** What a chaos run saw. */
export interface ChaosRunFigures {
  readonly supervisor: ChaosSupervisor;
  readonly relay: ChaosRelay;
  readonly plan: DemoPlan;
  readonly counterEvents: number;
  readonly messagesSent: number;
  readonly results: readonly InvariantResult[];
  readonly drained: boolean;
  readonly crashTarget: number;
  readonly seconds: number;
}

const row = (label: string, ...cells: Array<string | number>) =>
  `  ${label.padEnd(60)}${cells.map((cell) => String(cell).padStart(10)).join('')}`;

/**
 * Prints the chaos run's tables — crashes per point, injected faults, traffic — and every
 * invariant's result, and returns the process exit code: 0 only if every invariant holds.
 *
 * @example
 * ```ts
 * process.exit(printChaosReport({ supervisor, plan, results, drained, crashTarget: 1000, seconds }));
 * ```
 */
export function printChaosReport(figures: ChaosRunFigures): number {
  printCrashes(figures);
  printFaults(figures.supervisor);
  printTraffic(figures);
  const checks = [...runChecks(figures), ...figures.results];
  console.log(`\ninvariants`);
  for (const check of checks)
    console.log(`  ${check.holds ? 'PASS' : 'FAIL'}  ${check.name} — ${check.detail}`);
  const ok = checks.every((check) => check.holds);
  console.log(
    ok
      ? `\nall invariants hold (${figures.seconds.toFixed(0)} s)`
      : `\nINVARIANT VIOLATED (${figures.seconds.toFixed(0)} s)`,
  );
  return ok ? 0 : 1;
}

function printCrashes({ supervisor, crashTarget }: ChaosRunFigures): void {
  console.log(`\n${row('crash point (SIGKILL)', 'crashes', 'racing', 's alive')}`);
  for (const point of Object.values(CrashPoint)) {
    const crashes = supervisor.crashes.get(point) ?? 0;
    const lived = (supervisor.lifeMillis.get(point) ?? 0) / 1000 / Math.max(1, crashes);
    const racing = supervisor.concurrentCrashes.get(point) ?? 0;
    console.log(row(CRASH_POINT_LABELS[point], crashes, racing, lived.toFixed(1)));
  }
  console.log(
    row(
      `total (target ${crashTarget}, ${supervisor.spawned} processes started)`,
      supervisor.totalCrashes,
    ),
  );
  console.log('    racing: another consumer held the same event when the worker was killed');
  for (const [point, detail] of supervisor.crashSamples)
    console.log(`    e.g. ${CRASH_POINT_LABELS[point].split(' ')[0]}: ${detail}`);
}

function printFaults({ faults }: ChaosSupervisor): void {
  console.log(`\n${row('injected fault', 'DynamoDB', 'SQS')}`);
  let total = 0;
  for (const kind of Object.values(FaultKind)) {
    const dynamodb = faults.get(`dynamodb|${kind}`) ?? 0;
    const sqs = faults.get(`sqs|${kind}`);
    total += dynamodb + (sqs ?? 0);
    console.log(row(kind, dynamodb, kind === FaultKind.TransactionConflict ? '-' : (sqs ?? 0)));
  }
  console.log(row('total', total));
}

function printTraffic(figures: ChaosRunFigures): void {
  const { plan, supervisor, results } = figures;
  const metric = (name: string) =>
    Object.values(supervisor.metrics).reduce((sum, totals) => sum + (totals.get(name) ?? 0), 0);
  const figure = (name: string) =>
    results.reduce((sum, result) => sum + (result.figures?.[name] ?? 0), 0);
  // Notifications are not sent: the ledger publishes one per credited payment.
  const events =
    plan.payments.length + plan.orders.length + figures.counterEvents + plan.malformed.length;
  const duplicateShare = ((100 * plan.duplicates) / Math.max(1, events)).toFixed(1);
  console.log(`\n${row('traffic', 'count')}`);
  console.log(
    row(
      `events (${plan.payments.length} payments, each notified through the outbox, ${plan.orders.length} orders, ${figures.counterEvents} counter, ${plan.malformed.length} malformed)`,
      events,
    ),
  );
  console.log(
    row(`messages sent (duplicate copies: ${duplicateShare} % of events)`, figures.messagesSent),
  );
  console.log(row('duplicate copies sent', plan.duplicates));
  console.log(row('committed (inbox entry with the payload hash)', figure('committed')));
  console.log(row('duplicates dropped by the inbox', metric(InboxMetric.Duplicates)));
  if (metric(InboxMetric.SharedTransactions) > 0) {
    console.log(
      row(
        'messages committed in shared transactions (coalesce) / transactions',
        `${metric(InboxMetric.SharedCommits)} / ${metric(InboxMetric.SharedTransactions)}`,
      ),
    );
  }
  console.log(
    row('  of which reached the commit and lost the inbox condition', metric(INBOX_CONDITION_LOST)),
  );
  console.log(
    row(
      'failed attempts (retried by SQS)',
      metric(InboxMetric.Failures) - metric(InboxMetric.DeadLettered),
    ),
  );
  console.log(row('in a DLQ', figure('inDeadLetterQueues')));
  printRelay(figures.relay, figure('credited'));
  const { steps, freezes } = supervisor;
  console.log(row('notifier: lease claims', steps.claims));
  console.log(
    row(
      'notifier: emails sent (SES) / sends started',
      `${figure('emails')} / ${steps.effects('email')}`,
    ),
  );
  console.log(
    row(
      'notifier: extra emails, all from attempts stopped before their journal write',
      figure('extraEmails'),
    ),
  );
  console.log(
    row(
      'notifier: receipts written (S3) / puts started',
      `${figure('receipts')} / ${steps.effects('receipt')}`,
    ),
  );
  console.log(
    row(
      'notifier: freezes (point 10) / entries taken over meanwhile',
      `${freezes.asked} / ${freezes.takenOver}`,
    ),
  );
}

function printRelay(relay: ChaosRelay, credited: number): void {
  const count = (name: string) => relay.metrics.get(name) ?? 0;
  const { killed, errors, timeouts } = relay.failedInvocations;
  console.log(
    row(
      'relay: invocations / failed (killed, errors, timed out)',
      `${relay.invocations} / ${killed}, ${errors}, ${timeouts}`,
    ),
  );
  console.log(
    row(
      'relay: messages sent / credited payments (the rest re-sent)',
      `${count(InboxMetric.OutboxMessagesRelayed)} / ${credited}`,
    ),
  );
  console.log(
    row(
      'relay: records reported failed (retried) / dead-lettered',
      `${count(InboxMetric.OutboxRecordsFailed)} / ${count(InboxMetric.OutboxDeadLettered)}`,
    ),
  );
}

function runChecks({ supervisor, drained, crashTarget }: ChaosRunFigures): InvariantResult[] {
  const missing = Object.values(CrashPoint).filter((point) => !supervisor.crashes.get(point));
  const conditionLosses = Object.values(supervisor.metrics).reduce(
    (sum, totals) => sum + (totals.get(INBOX_CONDITION_LOST) ?? 0),
    0,
  );
  const racing = [CrashPoint.SlowHandler, CrashPoint.ConcurrentCopies].map(
    (point) => supervisor.concurrentCrashes.get(point) ?? 0,
  );
  const hung = supervisor.crashes.get(CrashPoint.HangingHandler) ?? 0;
  const late = Object.values(supervisor.metrics).reduce(
    (sum, totals) => sum + (totals.get(HUNG_BATCH_LATE) ?? 0),
    0,
  );
  return [
    {
      name: `at least ${crashTarget} crashes, at every crash point`,
      holds: supervisor.totalCrashes >= crashTarget && missing.length === 0,
      detail: missing.length
        ? `never hit: ${missing.join(', ')}`
        : `${supervisor.totalCrashes} crashes`,
    },
    {
      name: 'copies raced: kills while another consumer held the event (points 4, 5), and copies stopped by the inbox condition itself',
      holds: racing.some((n) => n > 0) && conditionLosses > 0,
      detail: `${racing.join(' and ')} racing kills, ${conditionLosses} copies lost the condition`,
    },
    {
      name: 'every batch with a hanging handler answered before its function timeout, the hung record reported failed (point 6)',
      holds: hung > 0 && late === 0,
      detail: `${hung} hung batches, ${late} late or without the hung record failed`,
    },
    {
      name: 'every worker exit was an injected SIGKILL',
      holds: supervisor.unexpectedExits.length === 0,
      detail: supervisor.unexpectedExits.length
        ? supervisor.unexpectedExits.slice(0, 3).join('; ')
        : `${supervisor.totalCrashes} kills`,
    },
    {
      name: 'all messages settled (queues drained)',
      holds: drained,
      detail: drained ? 'every queue empty' : 'messages left in a queue',
    },
  ];
}

import { describe, expect, it } from 'vitest';
import { StepEvidence } from '../../../tools/chaos/StepEvidence.js';

const pk = 'notifier#evt-1';
const record = { result: '{"messageId":"m-1"}', at: '2026-11-24T10:00:00.000Z' };
/** The entry a run left: the email journaled by the write above, last claimed by `epoch`. */
const entry = (epoch: number) => ({ pk, leaseEpoch: epoch, steps: { email: record } });

/** Epoch 1 claims, sends, journals; what follows is the test's. */
function journaledByEpochOne(): StepEvidence {
  const evidence = new StepEvidence();
  evidence.record(1, { type: 'claimed', pk, epoch: 1 });
  evidence.record(1, { type: 'effect', pk, step: 'email', epoch: 1 });
  evidence.record(1, { type: 'journalWrite', pk, step: 'email', epoch: 1, record });
  return evidence;
}

const failing = (evidence: StepEvidence, epoch = 1) =>
  evidence
    .check([entry(epoch)])
    .filter((result) => !result.holds)
    .map((result) => result.name.split(':')[0]);

describe('the step evidence of a chaos run', () => {
  it('holds when each step ran before its journal write and the last claim committed', () => {
    const evidence = journaledByEpochOne();
    evidence.record(1, { type: 'commit', pk, epoch: 1, outcome: 'committed' });
    evidence.recordTakeover({ refused: 2, applied: 0 });

    expect(failing(evidence)).toEqual([]);
  });

  it('counts an email sent by an attempt stopped before its journal write as accounted for, and only those', () => {
    const evidence = new StepEvidence();
    evidence.record(1, { type: 'claimed', pk, epoch: 1 });
    evidence.record(1, { type: 'effect', pk, step: 'email', epoch: 1 }); // killed here
    evidence.record(2, { type: 'claimed', pk, epoch: 2 });
    evidence.record(2, { type: 'effect', pk, step: 'email', epoch: 2 });
    evidence.record(2, { type: 'journalWrite', pk, step: 'email', epoch: 2, record });
    evidence.record(2, { type: 'commit', pk, epoch: 2, outcome: 'committed' });

    expect(evidence.extraEmailAllowance('notifier')).toEqual(new Map([['evt-1', 1]]));
    expect(failing(evidence, 2)).not.toContain('steps');
  });

  it('holds when two attempts wrote the same record in the same millisecond: the later epoch’s landed, the earlier one’s was fenced off', () => {
    const evidence = new StepEvidence();
    evidence.record(1, { type: 'claimed', pk, epoch: 1 });
    evidence.record(2, { type: 'claimed', pk, epoch: 2 }); // epoch 1's lease lapsed
    evidence.record(1, { type: 'effect', pk, step: 'email', epoch: 1 });
    evidence.record(2, { type: 'effect', pk, step: 'email', epoch: 2 });
    evidence.record(1, { type: 'journalWrite', pk, step: 'email', epoch: 1, record });
    evidence.record(2, { type: 'journalWrite', pk, step: 'email', epoch: 2, record });
    evidence.record(2, { type: 'journaled', pk, step: 'email', epoch: 2, at: record.at });
    evidence.record(2, { type: 'commit', pk, epoch: 2, outcome: 'committed' });
    evidence.recordTakeover({ refused: 1, applied: 0 });

    expect(failing(evidence, 2)).toEqual([]);
  });

  it('fails when a later attempt runs a step its journal already holds', () => {
    const evidence = journaledByEpochOne();
    evidence.record(2, { type: 'claimed', pk, epoch: 2 });
    evidence.record(2, { type: 'effect', pk, step: 'email', epoch: 2 });

    const [rerun] = evidence.check([entry(2)]);
    expect(rerun?.holds).toBe(false);
    expect(rerun?.detail).toContain('ran again after epoch 1 journaled it, by worker 2 epoch 2');
  });

  it('fails when a later attempt runs a journaled step again and journals it over the first record', () => {
    const evidence = journaledByEpochOne();
    evidence.record(1, { type: 'journaled', pk, step: 'email', epoch: 1, at: record.at });
    evidence.record(2, { type: 'claimed', pk, epoch: 2 });
    evidence.record(2, { type: 'effect', pk, step: 'email', epoch: 2 });
    const second = { result: '{"messageId":"m-2"}', at: '2026-11-24T10:00:05.000Z' };
    evidence.record(2, { type: 'journalWrite', pk, step: 'email', epoch: 2, record: second });
    const kept = { pk, leaseEpoch: 2, steps: { email: second } };

    const [rerun] = evidence.check([kept]);
    expect(rerun?.holds).toBe(false);
    expect(rerun?.detail).toContain('journaled by 2 attempts (epochs 2, 1)');
    expect(rerun?.detail).toContain('ran again after epoch 1 journaled it, by worker 2 epoch 2');
  });

  it('does not count a resend after a journal write that never landed as a rerun', () => {
    const evidence = new StepEvidence();
    const lost = { result: '{"messageId":"m-0"}', at: '2026-11-24T09:59:59.000Z' };
    evidence.record(1, { type: 'claimed', pk, epoch: 1 });
    evidence.record(1, { type: 'effect', pk, step: 'email', epoch: 1 });
    evidence.record(1, { type: 'journalWrite', pk, step: 'email', epoch: 1, record: lost }); // failed
    evidence.record(1, { type: 'claimed', pk, epoch: 2 });
    evidence.record(1, { type: 'effect', pk, step: 'email', epoch: 2 });
    evidence.record(1, { type: 'journalWrite', pk, step: 'email', epoch: 2, record });
    evidence.record(1, { type: 'journaled', pk, step: 'email', epoch: 2, at: record.at });
    evidence.record(1, { type: 'commit', pk, epoch: 2, outcome: 'committed' });
    evidence.recordTakeover({ refused: 1, applied: 0 });

    expect(failing(evidence, 2)).toEqual([]);
  });

  it('fails when the attempt that journaled a step runs it again', () => {
    const evidence = journaledByEpochOne();
    evidence.record(1, { type: 'effect', pk, step: 'email', epoch: 1 });

    expect(evidence.check([entry(1)])[0]?.holds).toBe(false);
  });

  it('fails when a journaled record was written by no reported attempt', () => {
    const evidence = new StepEvidence();
    evidence.record(1, { type: 'claimed', pk, epoch: 1 });

    expect(evidence.check([entry(1)])[0]?.detail).toContain('journaled by no reported write');
  });

  it('fails when a worker that lost its lease committed', () => {
    const evidence = journaledByEpochOne();
    evidence.record(1, { type: 'commit', pk, epoch: 1, outcome: 'committed' });
    evidence.record(2, { type: 'claimed', pk, epoch: 2 });

    expect(failing(evidence, 2)).toContain('steps');
    expect(evidence.check([entry(2)])[1]?.detail).toContain(
      'committed by epoch 1, last claimed by 2',
    );
  });

  it('fails when a frozen worker’s write was applied after its entry was taken over, or no takeover happened', () => {
    const applied = journaledByEpochOne();
    applied.record(1, { type: 'commit', pk, epoch: 1, outcome: 'committed' });
    applied.recordTakeover({ refused: 1, applied: 1 });
    const none = journaledByEpochOne();
    none.record(1, { type: 'commit', pk, epoch: 1, outcome: 'committed' });

    expect(failing(applied)).toEqual(['lease taken over in a freeze']);
    expect(failing(none)).toEqual(['lease taken over in a freeze']);
  });

  it('fails on an entry write the watch cannot tell apart (the tooling fell behind the library)', () => {
    const evidence = journaledByEpochOne();
    evidence.record(1, { type: 'unknownEntryWrite', detail: ':x :y' });

    expect(evidence.check([entry(1)])[0]?.detail).toContain('cannot tell apart');
  });
});

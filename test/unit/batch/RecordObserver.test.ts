/**
 * How a record's observer counts its steps (src/batch/RecordObserver.ts): run once a step's
 * function starts, replayed when the journal answers it, neither when refused before either.
 */
import { describe, expect, it } from 'vitest';
import { DeadLetterPublisher } from '../../../src/aws/DeadLetterPublisher.js';
import { observeRecord } from '../../../src/batch/RecordObserver.js';
import { RecordStatus, SpanAttribute } from '../../../src/constants/values.js';
import type { InboxSpan, InboxTracer, SpanAttributeValue } from '../../../src/core/InboxTracer.js';
import type { StepMarks } from '../../../src/core/RecordObservation.js';
import { resolveOptions } from '../../../src/core/resolveOptions.js';
import { LeaseHeldError } from '../../../src/errors.js';
import { DynamoDBInboxStore } from '../../../src/index.js';
import { recordingLogger, sqsRecord } from '../../support/sqsRecords.js';

/** A span that keeps its attributes, and what was done to it after it ended. */
class KeptSpan implements InboxSpan {
  readonly attributes: Record<string, SpanAttributeValue> = {};
  readonly children: KeptSpan[] = [];
  readonly afterEnd: string[] = [];
  errorType: string | undefined;
  #ended = false;

  setAttributes(attributes: Readonly<Record<string, SpanAttributeValue>>): void {
    if (this.#ended) this.afterEnd.push(`setAttributes ${Object.keys(attributes).join(',')}`);
    Object.assign(this.attributes, attributes);
  }
  recordError(errorType: string): void {
    this.errorType = errorType;
  }
  startChild(_name: string, attributes: Readonly<Record<string, SpanAttributeValue>>): InboxSpan {
    const child = new KeptSpan();
    Object.assign(child.attributes, attributes);
    this.children.push(child);
    return child;
  }
  withActive<T>(work: () => T): T {
    return work();
  }
  traceparent(): string | undefined {
    return undefined;
  }
  end(): void {
    this.#ended = true;
  }
}

function observed() {
  const spans: KeptSpan[] = [];
  const tracer: InboxTracer = {
    startSpan: () => {
      const span = new KeptSpan();
      spans.push(span);
      return span;
    },
  };
  const options = resolveOptions(
    {
      store: new DynamoDBInboxStore({ tableName: 'inbox' }),
      consumer: 'ledger',
      key: () => 'k',
      observability: { tracer, logger: recordingLogger() },
    },
    (url, client) => new DeadLetterPublisher(url, client),
  );
  const record = sqsRecord({ id: '1' });
  return { observation: observeRecord(record, options), record, span: () => spans[0] as KeptSpan };
}

describe('observeRecord', () => {
  it('counts a step started, a step replayed, and a step refused before its function as neither', async () => {
    const { observation, record, span } = observed();

    await observation.step('charge', async (marks) => marks.started());
    await observation.step('email', async (marks) => marks.replayed());
    const refused = observation.step('ship', async () => {
      throw new LeaseHeldError(60_000, 'holder-message');
    });
    await expect(refused).rejects.toBeInstanceOf(LeaseHeldError);
    observation.settle({ messageId: record.messageId, status: RecordStatus.Failed }, false);

    expect(span().attributes).toMatchObject({
      [SpanAttribute.StepsRun]: 1,
      [SpanAttribute.StepsReplayed]: 1,
    });
    const [charge, email, ship] = span().children;
    expect(charge?.attributes[SpanAttribute.StepReplayed]).toBe(false);
    expect(email?.attributes[SpanAttribute.StepReplayed]).toBe(true);
    expect(ship?.attributes).not.toHaveProperty(SpanAttribute.StepReplayed);
    expect(ship?.errorType).toBe('LeaseHeldError');
  });

  it('notes nothing on a step span that ended with its record at the deadline', async () => {
    const { observation, record, span } = observed();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let marks: StepMarks | undefined;
    const running = observation.step('charge', async (given) => {
      marks = given;
      await gate;
    });

    observation.settle({ messageId: record.messageId, status: RecordStatus.Failed }, true);
    marks?.started();
    release();
    await running;

    expect(span().attributes[SpanAttribute.StepsRun]).toBe(0);
    expect(span().children[0]?.afterEnd).toEqual([]);
  });
});

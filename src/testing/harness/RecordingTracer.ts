import { SpanAttribute } from '../../constants/values.js';
import type {
  InboxSpan,
  InboxTracer,
  SpanAttributeValue,
  SpanStart,
} from '../../core/InboxTracer.js';

type Attributes = Readonly<Record<string, SpanAttributeValue>>;

/**
 * The steps one record's attempt went through: run (its function started) or replayed; a step
 * refused before its function is in neither.
 */
export interface RecordedSteps {
  readonly run: string[];
  readonly replayed: string[];
}

/**
 * A tracer that keeps, per message id, the steps each attempt ran and replayed — how the
 * harness tells a test which steps a record's run went through. It opens no real span.
 */
export class RecordingTracer implements InboxTracer {
  readonly #steps = new Map<string, RecordedSteps>();
  #consumerSpans = 0;

  /** How many records' spans it has seen start: one per record a processor given it ran. */
  get consumerSpans(): number {
    return this.#consumerSpans;
  }

  /** The steps the latest attempt of a message ran and replayed. */
  stepsOf(messageId: string): RecordedSteps {
    return this.#steps.get(messageId) ?? { run: [], replayed: [] };
  }

  startSpan(start: SpanStart): InboxSpan {
    const messageId = String(start.attributes['messaging.message.id'] ?? '');
    const steps: RecordedSteps = { run: [], replayed: [] };
    if (start.kind === 'consumer') {
      this.#consumerSpans++;
      this.#steps.set(messageId, steps);
    }
    return recordSpan((name, replayed) => (replayed ? steps.replayed : steps.run).push(name));
  }
}

function recordSpan(onStep: (name: string, replayed: boolean) => void): InboxSpan {
  return {
    setAttributes: () => {},
    recordError: () => {},
    startChild: (_name: string, attributes: Attributes) => stepSpan(attributes, onStep),
    withActive: (work) => work(),
    traceparent: () => undefined,
    end: () => {},
  };
}

function stepSpan(
  started: Attributes,
  onStep: (name: string, replayed: boolean) => void,
): InboxSpan {
  const stepName = String(started[SpanAttribute.StepName] ?? '');
  let ended = false;
  // Set once the step's function starts (false) or the journal answers it (true); a step refused
  // before either (a live lease, a store error) is neither run nor replayed.
  let replayed: boolean | undefined;
  const span: InboxSpan = {
    setAttributes: (attributes) => {
      if (attributes[SpanAttribute.StepReplayed] !== undefined)
        replayed = attributes[SpanAttribute.StepReplayed] === true;
    },
    recordError: () => {},
    startChild: () => span,
    withActive: (work) => work(),
    traceparent: () => undefined,
    end: () => {
      if (ended) return;
      ended = true;
      if (replayed !== undefined) onStep(stepName, replayed);
    },
  };
  return span;
}

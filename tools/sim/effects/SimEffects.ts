import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { type Caller, type Network, RequestChannel } from '../network/Network.js';

/**
 * One call of a step's effect as the world saw it: for which event, by which invocation and
 * record, when it was issued (the step began it) and when the service applied it.
 *
 * @example
 * ```ts
 * const late = effects.emails.filter((email) => email.issuedMillis > journaledAt);
 * ```
 */
export interface EffectCall {
  readonly eventId: string;
  readonly invocationId: number | undefined;
  /** The SQS messageId of the record whose handler made the call. */
  readonly recordId: string;
  /** The call's number: a request the network applied twice is one call. */
  readonly callId: number;
  readonly issuedMillis: number;
  readonly appliedMillis: number;
}

/** An email SES accepted, with the reference line its body carries. */
export interface SentEmail extends EffectCall {
  readonly reference: string;
}

/** A receipt `PutObject` S3 applied: written, or refused by `If-None-Match: *`. */
export interface ReceiptPut extends EffectCall {
  readonly written: boolean;
}

/** The subject's `(evt-…)`: which event an email is for. */
const EVENT_IN_SUBJECT = /\(([^()]+)\)$/;

/**
 * The services steps reach outside DynamoDB, modelled: SES keeps every email it accepts and
 * deduplicates nothing; S3 keeps objects and refuses a `PutObject` with `If-None-Match: *` on a
 * key that exists with a 412, as both do on MiniStack. Their clients send through the simulated
 * network, so a call can be lost, answered late, applied twice or cut by a crash.
 *
 * @example
 * ```ts
 * const { ses, s3 } = effects.clients(network, caller, record.messageId, () => kernel.nowMillis);
 * ```
 */
export class SimEffects {
  readonly emails: SentEmail[] = [];
  readonly receiptPuts: ReceiptPut[] = [];
  /** Objects by key: the body first written. */
  readonly objects = new Map<string, string>();
  #calls = 0;

  /** Clients for one record's handler: its calls are tagged as that record's. */
  clients(
    network: Network,
    caller: Caller,
    recordId: string,
    nowMillis: () => number,
  ): { ses: SESv2Client; s3: S3Client } {
    const tag = { channel: RequestChannel.Handler, subjects: [recordId] };
    const call = (
      service: string,
      name: string,
      apply: (issued: Pick<EffectCall, 'issuedMillis' | 'callId' | 'invocationId'>) => unknown,
    ) => {
      // Charged to the invocation that issued it, even if the network applies it much later.
      const issued = {
        issuedMillis: nowMillis(),
        callId: ++this.#calls,
        invocationId: caller.invocationId,
      };
      return network.call(caller, service, name, () => apply(issued), { tag });
    };
    const ses = {
      send: (command: unknown) => {
        if (!(command instanceof SendEmailCommand)) throw refused('SES', command);
        const { Content } = command.input;
        const subject = Content?.Simple?.Subject?.Data ?? '';
        const text = Content?.Simple?.Body?.Text?.Data ?? '';
        return call('ses', 'SendEmail', (issued) => {
          this.emails.push({
            eventId: EVENT_IN_SUBJECT.exec(subject)?.[1] ?? '',
            reference: text.slice(text.indexOf('Reference: ') + 11),
            recordId,
            ...issued,
            appliedMillis: nowMillis(),
          });
          return { MessageId: `ses-${this.emails.length}` };
        });
      },
    };
    const s3 = {
      send: (command: unknown) => {
        if (!(command instanceof PutObjectCommand)) throw refused('S3', command);
        const { Key = '', Body, IfNoneMatch } = command.input;
        return call('s3', 'PutObject', (issued) => {
          const written = IfNoneMatch !== '*' || !this.objects.has(Key);
          this.receiptPuts.push({
            eventId: eventIdIn(String(Body)),
            recordId,
            ...issued,
            appliedMillis: nowMillis(),
            written,
          });
          if (!written) throw preconditionFailed();
          this.objects.set(Key, String(Body));
          return { ETag: `"${this.objects.size}"` };
        });
      },
    };
    return { ses: ses as unknown as SESv2Client, s3: s3 as unknown as S3Client };
  }
}

/** The event a receipt is for: its body names it. */
function eventIdIn(body: string): string {
  try {
    return String((JSON.parse(body) as { eventId?: unknown }).eventId ?? '');
  } catch {
    return '';
  }
}

function preconditionFailed(): Error {
  return Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
    name: 'PreconditionFailed',
    $fault: 'client',
    $metadata: { httpStatusCode: 412 },
  });
}

function refused(service: string, command: unknown): Error {
  const name = (command as { constructor?: { name?: string } } | null)?.constructor?.name;
  return new Error(`the simulated ${service} client does not send ${name ?? typeof command}`);
}

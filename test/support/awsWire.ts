import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * AWS answers no emulator gives (KMS throttling, a disabled key, 5xx…), injected below the SDK:
 * a request handler answers with the service's wire response, so the SDK itself builds the error
 * (its exception class as `name`, the query code as `Code`, the HTTP status in `$metadata`).
 */
export interface WireAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A request handler for an SDK client that records each request's body in `sent` and answers
 * with `answers` in turn (the last one again once they run out); an answer may be built from
 * the request's body.
 */
export function answering(
  answers: WireAnswer | ReadonlyArray<WireAnswer | ((requestBody: string) => WireAnswer)>,
  sent: string[] = [],
) {
  const list = Array.isArray(answers) ? answers : [answers];
  return {
    handle: async (request: { body?: unknown }) => {
      const { body } = request;
      const text = body instanceof Uint8Array ? new TextDecoder().decode(body) : String(body ?? '');
      sent.push(text);
      const next = list[Math.min(sent.length, list.length) - 1];
      const answer = typeof next === 'function' ? next(text) : (next as WireAnswer);
      return {
        response: {
          statusCode: answer.status,
          headers: answer.headers,
          body: Readable.from([Buffer.from(answer.body)]),
        },
      };
    },
  } as never;
}

/** A client's configuration for {@link answering}: no retries, no real credentials. */
export const CONFIG = {
  region: 'eu-west-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
};

/** SNS's query protocol: an XML error document with the wire code. */
export const snsError = (code: string, status: number): WireAnswer => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>injected</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
});
/** SQS's JSON protocol, query-compatible: the shape in `__type`, the query code in a header. */
export const sqsError = (name: string, code: string, status: number): WireAnswer => ({
  status,
  headers: {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-query-error': `${code};Sender`,
  },
  body: JSON.stringify({ __type: `com.amazonaws.sqs#${name}`, message: 'injected' }),
});
/** EventBridge's JSON protocol: the shape in `__type`. */
export const eventBridgeError = (name: string, status: number): WireAnswer => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify({ __type: name, message: 'injected' }),
});
/** A PutEvents answer of 200 whose one entry failed with `code`. */
export const failedEntry = (code: string): WireAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify({ FailedEntryCount: 1, Entries: [{ ErrorCode: code, ErrorMessage: 'x' }] }),
});

/** SQS's answer to a `SendMessage` that it took, with the body's MD5 the SDK checks. */
export const sqsSent = (requestBody: string): WireAnswer => {
  const { MessageBody = '' } = JSON.parse(requestBody) as { MessageBody?: string };
  const md5 = createHash('md5').update(MessageBody, 'utf8').digest('hex');
  return {
    status: 200,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: md5 }),
  };
};

/**
 * The part of an SDK HTTP request the in-memory services read.
 *
 * @example
 * ```ts
 * const operation = wireOperation(request.headers); // 'GetItem', 'SendMessage'…
 * ```
 */
export interface WireRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/**
 * The operation a JSON-protocol request names in `X-Amz-Target` (`DynamoDB_20120810.GetItem`).
 *
 * @example
 * ```ts
 * wireOperation({ 'x-amz-target': 'AmazonSQS.SendMessage' }) // => 'SendMessage'
 * ```
 */
export function wireOperation(headers: Readonly<Record<string, string>>): string {
  const target = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-amz-target');
  return target?.[1].split('.')[1] ?? '(no X-Amz-Target)';
}

/**
 * A request's JSON body, read whole.
 *
 * @example
 * ```ts
 * wireBody(request) // => { TableName: 'inbox', Key: … }
 * ```
 */
export function wireBody(request: WireRequest): Record<string, unknown> {
  const { body } = request;
  if (body === undefined || body === null || body === '') return {};
  if (typeof body === 'string') return JSON.parse(body) as Record<string, unknown>;
  // Decoded as bytes: the SDK's body adapter warns when read as a string.
  if (body instanceof Uint8Array)
    return JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>;
  throw new Error('The in-memory services read request bodies given whole, not as streams.');
}

/**
 * An answer of a JSON-protocol service, as the SDK's request handler gives it back.
 *
 * @example
 * ```ts
 * return wireAnswer(200, { MessageId: 'm-1' });
 * ```
 */
export function wireAnswer(
  statusCode: number,
  document: unknown,
  headers: Readonly<Record<string, string>> = {},
) {
  return {
    response: {
      statusCode,
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': 'in-memory',
        ...headers,
      },
      body: new TextEncoder().encode(JSON.stringify(document)),
    },
  };
}

import { InboxEnvironment } from 'sqs-inbox/constants';
import type { Template } from './referenceTemplate.js';

type Resource = Template['Resources'][string];

/** A DynamoDB stream → function wiring of the template (the outbox relay's), resolved locally. */
export interface LocalStreamSpec {
  /** The outbox table's local name. */
  readonly tableName: string;
  readonly batchSize: number;
  readonly maximumRetryAttempts: number;
  readonly maximumRecordAgeSeconds: number;
  readonly bisectBatchOnFunctionError: boolean;
  readonly reportBatchItemFailures: boolean;
  /** The event names the mapping's filter lets through. */
  readonly eventNames: readonly string[];
  /** The on-failure destination's queue URL. */
  readonly onFailureQueueUrl: string | undefined;
  /** The relay's dead-letter queue (its function's `INBOX_RELAY_DEAD_LETTER_QUEUE_URL`). */
  readonly deadLetterQueueUrl: string;
}

/**
 * The template's stream mappings with tables and queues resolved to the names `npm start`
 * created, and the settings Lambda would apply (defaults as Lambda's).
 */
export function streamMappingsOf(
  template: Template,
  resolve: (value: unknown) => string,
): LocalStreamSpec[] {
  return Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && isStream(r))
    .map((mapping) => toSpec(mapping, template, resolve));
}

/**
 * Whether a mapping reads a table's stream (`Fn::GetAtt [table, StreamArn]`), not a queue.
 *
 * @example
 * ```ts
 * const queueMappings = mappings.filter((m) => !isStream(m));
 * ```
 */
export function isStream(mapping: Resource): boolean {
  const source = mapping.Properties?.EventSourceArn as
    | { 'Fn::GetAtt'?: [string, string] }
    | undefined;
  return source?.['Fn::GetAtt']?.[1] === 'StreamArn';
}

function toSpec(
  mapping: Resource,
  template: Template,
  resolve: (value: unknown) => string,
): LocalStreamSpec {
  const p = mapping.Properties ?? {};
  const [tableId = ''] = (p.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
  const functionId = (p.FunctionName as { Ref: string }).Ref;
  const variables =
    (
      template.Resources[functionId]?.Properties?.Environment as
        | { Variables?: Record<string, unknown> }
        | undefined
    )?.Variables ?? {};
  const filters =
    (p.FilterCriteria as { Filters?: Array<{ Pattern: string }> } | undefined)?.Filters ?? [];
  const eventNames = filters.flatMap(
    (filter) => (JSON.parse(filter.Pattern) as { eventName?: string[] }).eventName ?? [],
  );
  const onFailure = (p.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)
    ?.OnFailure?.Destination;
  return {
    tableName: resolve({ Ref: tableId }),
    batchSize: Number(p.BatchSize ?? 100),
    maximumRetryAttempts: Number(p.MaximumRetryAttempts ?? -1),
    maximumRecordAgeSeconds: Number(p.MaximumRecordAgeInSeconds ?? -1),
    bisectBatchOnFunctionError: p.BisectBatchOnFunctionError === true,
    reportBatchItemFailures: ((p.FunctionResponseTypes as string[] | undefined) ?? []).includes(
      'ReportBatchItemFailures',
    ),
    eventNames: eventNames.length > 0 ? eventNames : ['INSERT', 'MODIFY', 'REMOVE'],
    onFailureQueueUrl: onFailure === undefined ? undefined : resolveQueueUrl(onFailure, resolve),
    deadLetterQueueUrl: resolve(variables[InboxEnvironment.RelayDeadLetterQueueUrl] ?? ''),
  };
}

/** An on-failure destination is a queue ARN (`Fn::GetAtt [queue, Arn]`): its URL. */
function resolveQueueUrl(destination: unknown, resolve: (value: unknown) => string): string {
  const [queueId = ''] = (destination as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
  return resolve({ Ref: queueId });
}

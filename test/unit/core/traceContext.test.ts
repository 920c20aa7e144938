import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { traceLinksOf } from '../../../src/core/traceContext.js';
import { MessageSource } from '../../../src/index.js';
import { snsNotification } from '../../support/envelopes.js';
import { sqsRecord } from '../../support/sqsRecords.js';

const TRACE_ID = '5759e988bd862e3fe1be46a994272793';
const SPAN_ID = '53995c3f42cd8ad8';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;
const OTHER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** An SNS notification with raw delivery off, the publisher's attributes in its envelope. */
function enveloped(attributes: Record<string, { Type: string; Value: string }>): SQSRecord {
  return sqsRecord(snsNotification('{"id":"1"}', { MessageAttributes: attributes }));
}

const ids = (record: SQSRecord, sources: readonly MessageSource[]) =>
  traceLinksOf(record, sources).map(({ traceId, spanId }) => `${traceId}/${spanId}`);

describe('traceLinksOf, an SNS notification delivered with raw delivery off', () => {
  it('links to the traceparent among the notification attributes when the consumer reads SNS', () => {
    const record = enveloped({ traceparent: { Type: 'String', Value: TRACEPARENT } });

    expect(traceLinksOf(record, [MessageSource.Sns])).toEqual([
      expect.objectContaining({ traceId: TRACE_ID, spanId: SPAN_ID, sampled: true }),
    ]);
  });

  it('reads no envelope for a consumer that does not declare sns: its body is the payload', () => {
    const record = enveloped({ traceparent: { Type: 'String', Value: TRACEPARENT } });

    expect(traceLinksOf(record, [MessageSource.Sqs])).toEqual([]);
    expect(traceLinksOf(record, [MessageSource.SnsRaw])).toEqual([]);
  });

  it('links the record attributes first and a context carried twice once', () => {
    const both = {
      ...enveloped({ traceparent: { Type: 'String', Value: TRACEPARENT } }),
      messageAttributes: {
        traceparent: {
          dataType: 'String',
          stringValue: OTHER,
          stringListValues: [],
          binaryListValues: [],
        },
      },
    };
    const same = {
      ...both,
      messageAttributes: {
        traceparent: { ...both.messageAttributes.traceparent, stringValue: TRACEPARENT },
      },
    };

    expect(ids(both, [MessageSource.Sns])).toEqual([
      '0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331',
      `${TRACE_ID}/${SPAN_ID}`,
    ]);
    expect(ids(same, [MessageSource.Sns])).toEqual([`${TRACE_ID}/${SPAN_ID}`]);
  });

  it('ignores a traceparent that is not one, a body that is not a notification, and a body that is not JSON', () => {
    const invalid = enveloped({ traceparent: { Type: 'String', Value: '00-zz-zz-01' } });
    const notSns = sqsRecord({ MessageAttributes: { traceparent: { Value: TRACEPARENT } } });
    const notJson = sqsRecord(`traceparent ${TRACEPARENT}`);

    for (const record of [invalid, notSns, notJson]) {
      expect(traceLinksOf(record, [MessageSource.Sns])).toEqual([]);
    }
  });
});

import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { openTelemetryTracer } from 'sqs-inbox/otel'; // needs @opentelemetry/api (optional peer)
import { z } from 'zod';

const PaymentCaptured = z.object({ paymentId: z.string(), accountId: z.string() });
const inbox = inboxConfigFromEnvironment();

export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.put({ TableName: inbox.table('payments'), Item: body });
  },
  {
    ...inbox.options,
    schema: PaymentCaptured,
    key: ({ body }) => body.paymentId,
    observability: { tracer: openTelemetryTracer() },
  },
).process;

/**
 * Sends to the service `npm start -- --keep-running` is serving, as its producers do:
 *   npm run send -- <consumer> <json> [--group <id>] [--direct]
 * (`npm run inbox`, `dlq` and `redrive` are the package's `sqs-inbox` command with `--local`.)
 */

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Command } from 'commander';
import { LOCAL_RUN_FILE } from '../tools/local/runFile.js';
import type { Upstream } from '../tools/local/UpstreamDelivery.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface LocalRun {
  endpoint: string;
  consumers: Record<
    string,
    { queueUrl: string; deadLetterQueueUrl: string; inboxTable: string; upstream: Upstream }
  >;
}

function localRun(consumer: string) {
  if (!existsSync(LOCAL_RUN_FILE)) {
    throw new Error(
      `no running service: start one with \`npm start -- --keep-running\` (it writes ${LOCAL_RUN_FILE}).`,
    );
  }
  const run = JSON.parse(readFileSync(LOCAL_RUN_FILE, 'utf8')) as LocalRun;
  const target = run.consumers[consumer];
  if (!target)
    throw new Error(
      `unknown consumer "${consumer}"; use one of ${Object.keys(run.consumers).join(', ')}.`,
    );
  const config = {
    endpoint: run.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  return {
    target,
    sqs: new SQSClient(config),
    sns: new SNSClient(config),
    events: new EventBridgeClient(config),
  };
}

/** The body's accountId, the ledger's message group; undefined for a body that is not JSON. */
function accountIdOf(json: string): string | undefined {
  try {
    return (JSON.parse(json) as { accountId?: string }).accountId;
  } catch {
    return undefined;
  }
}

const program = new Command('sqs-inbox-local').description(
  'Send to the service `npm start -- --keep-running` serves.',
);

program
  .command('send')
  .description(
    'send one event (a JSON payload) the way its producer does: published to the ledger’s payments topic, put on the inventory’s orders bus, sent to the notifier’s queue',
  )
  .argument('<consumer>', 'ledger, inventory or notifier')
  .argument('<json>', 'the payload')
  .option('--group <id>', 'FIFO message group (ledger); default: the payload’s accountId')
  .option('--direct', 'send it to the queue itself, bypassing the topic or bus', false)
  .action(async (consumer: string, json: string, options: { group?: string; direct: boolean }) => {
    const { target, sqs, sns, events } = localRun(consumer);
    const upstream: Upstream = options.direct ? { kind: 'sqs' } : target.upstream;
    const fifo =
      upstream.kind === 'sns'
        ? upstream.topicArn.endsWith('.fifo')
        : target.queueUrl.endsWith('.fifo');
    const group = fifo ? (options.group ?? accountIdOf(json) ?? 'default') : undefined;
    const fifoIds = group ? { MessageGroupId: group, MessageDeduplicationId: randomUUID() } : {};
    if (upstream.kind === 'sns') {
      const { MessageId } = await sns.send(
        new PublishCommand({ TopicArn: upstream.topicArn, Message: json, ...fifoIds }),
      );
      console.log(`published ${MessageId} to ${upstream.topicArn}`);
    } else if (upstream.kind === 'eventbridge') {
      const { Entries = [] } = await events.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: upstream.busName,
              Source: upstream.source,
              DetailType: upstream.detailType,
              Detail: json,
            },
          ],
        }),
      );
      console.log(
        `put event ${Entries[0]?.EventId ?? Entries[0]?.ErrorMessage} on ${upstream.busName}`,
      );
    } else {
      const { MessageId } = await sqs.send(
        new SendMessageCommand({ QueueUrl: target.queueUrl, MessageBody: json, ...fifoIds }),
      );
      console.log(`sent ${MessageId} to ${target.queueUrl}`);
    }
  });

try {
  await program.parseAsync();
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

/** One interface whose members a configuration section lists, and the file that declares it. */
export interface OptionInterface {
  readonly name: string;
  readonly file: string;
}

/**
 * One `## heading` of the configuration page: the options of one interface (the first; those
 * after it are what it extends, for the TSDoc check that reads the source), and whether they
 * are given through `Partial<…>`, so that each is optional and needs a `@defaultValue`.
 */
export interface OptionSection {
  readonly heading: string;
  /** Where these options are given, shown under the heading. */
  readonly givenAs: string;
  readonly interfaces: readonly [OptionInterface, ...OptionInterface[]];
  readonly partial?: boolean;
}

const at = (name: string, file: string): OptionInterface => ({ name, file });
const group = (heading: string, name: string, file = 'src/core/ProcessorSettings.ts') => ({
  heading,
  givenAs: `\`${heading}\` of the options of \`processSqsBatch\` and \`createBatchProcessor\``,
  interfaces: [at(name, file)] as const,
});
const props = (name: string, file: string, givenAs: string): OptionSection => ({
  heading: name,
  givenAs,
  interfaces: [at(name, file)],
});

/**
 * The sections of reference/configuration.md, in page order: the processor's options and each
 * of their groups (headings are the group's key, the anchors other pages link to:
 * `/reference/configuration#reliability`), the store's, the relay's, then the constructs'
 * props. Also the list the TSDoc check reads: every option member here has a summary and a
 * `@defaultValue` or is required.
 */
export const OPTION_SECTIONS: readonly OptionSection[] = [
  {
    heading: 'InboxOptions',
    givenAs:
      'the options of `processSqsBatch(event, handler, options)` and `createBatchProcessor(handler, options)` (`sqs-inbox`)',
    interfaces: [
      at('InboxOptions', 'src/batch/InboxOptions.ts'),
      at('ProcessorSettings', 'src/core/ProcessorSettings.ts'),
    ],
  },
  group('deadLetter', 'DeadLetterSettings'),
  group('reliability', 'ReliabilitySettings'),
  group('retry', 'RetrySettings'),
  group('observability', 'ObservabilitySettings'),
  group('performance', 'PerformanceSettings'),
  { ...group('runtime', 'InboxRuntime', 'src/runtime/InboxRuntime.ts'), partial: true },
  props(
    'DynamoDBInboxStoreOptions',
    'src/aws/documentClientFor.ts',
    '`new DynamoDBInboxStore(options)`, the `store` option (`sqs-inbox`)',
  ),
  props(
    'OutboxRelayOptions',
    'src/relay/createOutboxRelay.ts',
    '`createOutboxRelay(options)` (`sqs-inbox/relay`)',
  ),
  props(
    'OutboxRelayDeadLetterSettings',
    'src/relay/createOutboxRelay.ts',
    '`deadLetter` of `OutboxRelayOptions`',
  ),
  props(
    'InboxConsumerProps',
    'src/cdk/InboxConsumerProps.ts',
    '`new InboxConsumer(scope, id, props)` (`sqs-inbox/cdk`)',
  ),
  props(
    'InboxFunctionProps',
    'src/cdk/InboxFunctionProps.ts',
    '`function` of `InboxConsumerProps`',
  ),
  props(
    'BusinessTableGrant',
    'src/cdk/InboxConsumerProps.ts',
    'an entry of `businessTables` of `InboxConsumerProps`',
  ),
  props('InboxQueueProps', 'src/cdk/InboxConsumerProps.ts', '`queue` of `InboxConsumerProps`'),
  props(
    'InboxDeadLetterProps',
    'src/cdk/InboxConsumerProps.ts',
    '`deadLetter` of `InboxConsumerProps`',
  ),
  props(
    'InboxEventSourceProps',
    'src/cdk/InboxConsumerProps.ts',
    '`eventSource` of `InboxConsumerProps`',
  ),
  props(
    'InboxMonitoringProps',
    'src/cdk/InboxConsumerProps.ts',
    '`monitoring` of `InboxConsumerProps`',
  ),
  props('InboxRetryProps', 'src/cdk/InboxRetryProps.ts', '`retry` of `InboxConsumerProps`'),
  props(
    'SnsTopicSourceOptions',
    'src/cdk/QueueSource.ts',
    '`QueueSource.snsTopic(topic, options)`',
  ),
  props(
    'EventBridgeSourceOptions',
    'src/cdk/QueueSource.ts',
    '`QueueSource.eventBridgeRule(rule, options)`',
  ),
  {
    ...props(
      'EventPatternSourceOptions',
      'src/cdk/QueueSource.ts',
      '`QueueSource.eventPattern(pattern, options)`',
    ),
    interfaces: [
      at('EventPatternSourceOptions', 'src/cdk/QueueSource.ts'),
      at('EventBridgeSourceOptions', 'src/cdk/QueueSource.ts'),
    ],
  },
  props(
    'S3BucketSourceOptions',
    'src/cdk/QueueSource.ts',
    '`QueueSource.s3Bucket(bucket, options)`',
  ),
  props(
    'InboxTableProps',
    'src/cdk/InboxTable.ts',
    '`new InboxTable(scope, id, props)` (`sqs-inbox/cdk`)',
  ),
  props(
    'OutboxRelayProps',
    'src/cdk/OutboxRelayProps.ts',
    '`new OutboxRelay(scope, id, props)`, and `outbox` of `InboxConsumerProps` (`sqs-inbox/cdk`)',
  ),
  props(
    'OutboxPipeProps',
    'src/cdk/OutboxPipe.ts',
    '`new OutboxPipe(scope, id, props)` (`sqs-inbox/cdk`)',
  ),
  props(
    'OutboxTableProps',
    'src/cdk/OutboxTable.ts',
    '`new OutboxTable(scope, id, props)` (`sqs-inbox/cdk`)',
  ),
];

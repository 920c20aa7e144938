/**
 * A deliberate bug in the library, applied to its source in memory when the simulation is
 * bundled, to prove the simulation catches it. `find` must occur exactly once in `file`, so a
 * mutant that no longer applies fails loudly instead of testing nothing.
 *
 * @example
 * ```ts
 * await bundleSimulation({ mutant: MUTANTS.noInboxCondition });
 * ```
 */
export interface Mutant {
  readonly name: string;
  readonly description: string;
  /** Path from the project root. */
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  /** The invariant that must catch it (the start of its failure line). */
  readonly invariant: string;
}

/** The named mutants of issue 16: each must make the simulation fail. */
export const MUTANTS = {
  noInboxCondition: {
    name: 'noInboxCondition',
    invariant: 'exactly-once',
    description: 'the inbox entry is written whether or not a live one exists',
    file: 'src/aws/entryWrites.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    find: 'ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED} OR ${ENTRY_IS_RESUMABLE}`,',
    replace:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
      'ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED} OR ${ENTRY_IS_RESUMABLE} OR attribute_exists(#pk)`,',
  },
  acknowledgeEverything: {
    name: 'acknowledgeEverything',
    invariant: 'nothing lost',
    description: 'the batch response reports no failure, whatever happened to the records',
    file: 'src/batch/createBatchProcessor.ts',
    find: 'return { batchItemFailures: failed.map((outcome) => ({ itemIdentifier: outcome.messageId })) };',
    replace:
      'return { batchItemFailures: failed.slice(0, 0).map((outcome) => ({ itemIdentifier: outcome.messageId })) };',
  },
  commitWithoutBusinessWrites: {
    name: 'commitWithoutBusinessWrites',
    invariant: 'effects',
    description: "the transaction holds the inbox entry but not the handler's writes",
    file: 'src/aws/DynamoDBInboxStore.ts',
    find: 'return [entryWrite(this.tableName, request), ...request.operations, ...outboxItems];',
    replace: 'return [entryWrite(this.tableName, request), ...outboxItems];',
  },
  noFifoSkip: {
    name: 'noFifoSkip',
    invariant: 'FIFO',
    description: "a FIFO group's later records run after an earlier one failed",
    file: 'src/batch/createBatchProcessor.ts',
    find: 'const blocked = outcomes.some((outcome) => outcome.status === RecordStatus.Failed);',
    replace:
      'const blocked = outcomes.some((outcome) => outcome.status === RecordStatus.Failed) && false;',
  },
  deadLetterAfterTheBatchAnswered: {
    name: 'deadLetterAfterTheBatchAnswered',
    invariant: 'one place',
    description:
      'a record still settling its failure when the batch answers at its deadline is dead-lettered too (the bug the simulation found)',
    file: 'src/core/settleFailure.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    find: 'if (batchAnswered?.aborted) {\n    reportAnsweredAtTheDeadline(record, `${report.why},',
    replace:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
      'if (batchAnswered?.aborted && false) {\n    reportAnsweredAtTheDeadline(record, `${report.why},',
  },
  deadLetterTransientAtOnce: {
    name: 'deadLetterTransientAtOnce',
    invariant: 'DLQ',
    description: 'a retryable failure is dead-lettered at its first receive, not its last',
    file: 'src/core/settleFailure.ts',
    find: 'return Number.isFinite(receiveCount) && receiveCount >= options.maxReceiveCount;',
    replace: 'return Number.isFinite(receiveCount) || receiveCount >= options.maxReceiveCount;',
  },
  noLastReceiveDeadLetter: {
    name: 'noLastReceiveDeadLetter',
    invariant: 'DLQ',
    description:
      'a record failing on its last receive is reported failed, for SQS to move without a reason (holding its FIFO group)',
    file: 'src/core/settleFailure.ts',
    find: 'return Number.isFinite(receiveCount) && receiveCount >= options.maxReceiveCount;',
    replace:
      'return Number.isFinite(receiveCount) && receiveCount >= options.maxReceiveCount && false;',
  },
  noRetry: {
    name: 'noRetry',
    invariant: 'explained failures',
    description:
      'a transient store error fails the record at once, whatever transactionAttempts says',
    file: 'src/record/processRecord.ts',
    find: 'attempts: options.transactionAttempts,',
    replace: 'attempts: 1,',
  },
  lastReceiveDeadLetterOnlyRefusals: {
    name: 'lastReceiveDeadLetterOnlyRefusals',
    invariant: 'DLQ',
    description:
      'on its last receive only a record its business condition refused is dead-lettered; one that failed under faults is left to the redrive policy',
    file: 'src/core/settleFailure.ts',
    find: 'if (batchAnswered?.aborted || (!permanent && !isLastReceive(record, options))) {',
    replace:
      "if (batchAnswered?.aborted || (!permanent && (!isLastReceive(record, options) || (error as Error)?.name !== 'BusinessConditionFailedError'))) {",
  },
  slowBackoff: {
    name: 'slowBackoff',
    invariant: 'explained failures',
    description:
      'the retry backoff waits a thousand times too long, so one conflict stalls the batch to its deadline',
    file: 'src/core/retryTransient.ts',
    find: 'return random * Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS * 2 ** attempt);',
    replace:
      'return 1000 * random * Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS * 2 ** attempt);',
  },
  nothingPermanent: {
    name: 'nothingPermanent',
    invariant: 'explained failures',
    description: 'a permanent failure is retried like a transient one until its last receive',
    file: 'src/core/settleFailure.ts',
    find: 'const permanent = error instanceof PermanentError;',
    replace: 'const permanent = error instanceof PermanentError && false;',
  },
  noCommittedAlreadyRead: {
    name: 'noCommittedAlreadyRead',
    invariant: 'one place',
    description:
      'a record is dead-lettered without reading the inbox for a commit of its key first',
    file: 'src/core/settleFailure.ts',
    find: 'if (identity === undefined || error instanceof InboxTableSchemaError) return undefined;',
    replace:
      'if (identity === undefined || error instanceof InboxTableSchemaError || true) return undefined;',
  },
  duplicateWhateverTheBody: {
    name: 'duplicateWhateverTheBody',
    invariant: 'nothing lost',
    description:
      'a key committed with another body is acknowledged as a duplicate, not refused as PayloadMismatchError',
    file: 'src/record/judgeExisting.ts',
    find: '  if (!holdsPayload(existing, hashes)) {\n    throw new PayloadMismatchError',
    replace:
      '  if (!holdsPayload(existing, hashes) && false) {\n    throw new PayloadMismatchError',
  },
  wrongDeadLetterReason: {
    name: 'wrongDeadLetterReason',
    invariant: 'DLQ',
    description: 'a dead-lettered message carries a generic reason, not its error',
    file: 'src/aws/deadLetterCopies.ts',
    find: "return error instanceof Error ? error.name : 'Error';",
    replace: "return error instanceof Error ? 'Error' : 'Error';",
  },
  noBatchDeadline: {
    name: 'noBatchDeadline',
    invariant: 'liveness',
    description: 'the batch never answers early: a slow batch runs into the function timeout',
    file: 'src/batch/startDeadline.ts',
    find: "if (typeof context?.getRemainingTimeInMillis !== 'function') return undefined;",
    replace: "if (typeof context?.getRemainingTimeInMillis !== 'object') return undefined;",
  },
  entryExpiresAtOnce: {
    name: 'entryExpiresAtOnce',
    invariant: 'exactly-once',
    description: 'the inbox entry expires one second after its commit, whatever ttlSeconds says',
    file: 'src/core/inboxEntry.ts',
    find: 'expiresAt: toEpochSeconds(input.nowMillis) + input.ttlSeconds,',
    replace: 'expiresAt: toEpochSeconds(input.nowMillis) + 1,',
  },
  leaseWritesUnfenced: {
    name: 'leaseWritesUnfenced',
    invariant: 'fencing',
    description:
      "a step's journal writes, heartbeats and release are not conditioned on owning the lease",
    file: 'src/aws/InboxLeases.ts',
    find: 'const input = entryUpdate(this.tableName, request.pk, update, ENTRY_CONDITION.fenced, {',
    replace:
      "const input = entryUpdate(this.tableName, request.pk, update, 'attribute_exists(#pk)', {",
  },
  commitUnfenced: {
    name: 'commitUnfenced',
    // A stale commit is mostly refused by the notification's own condition, and the attempt then
    // keeps failing with nothing to explain it; one that lands first breaks fencing.
    invariant: 'explained failures',
    description: 'the commit of a handler with steps is not conditioned on owning the lease',
    file: 'src/aws/entryWrites.ts',
    find: 'Update: entryUpdate(tableName, entry.pk, update, ENTRY_CONDITION.fenced, {',
    replace: "Update: entryUpdate(tableName, entry.pk, update, 'attribute_exists(#pk)', {",
  },
  claimLiveLease: {
    name: 'claimLiveLease',
    invariant: 'fencing',
    description: "a claim takes over another attempt's live lease",
    file: 'src/aws/entryWrites.ts',
    find: "'AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis) ' +",
    replace:
      "'AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis OR #leaseUntil >= :nowMillis) ' +",
  },
  noReplay: {
    name: 'noReplay',
    invariant: 'steps',
    description: 'a journaled step runs again instead of returning its recorded result',
    file: 'src/steps/MessageSteps.ts',
    find: '    if (journaled !== undefined) {',
    replace: '    if (journaled !== undefined && false) {',
  },
  releaseDropsJournal: {
    name: 'releaseDropsJournal',
    invariant: 'steps',
    description: 'releasing the lease after a failure drops the journal',
    file: 'src/aws/entryWrites.ts',
    find: "release: 'SET #status = :failed, #lastError = :lastError REMOVE #owner, #leaseUntil',",
    replace:
      "release: 'SET #status = :failed, #lastError = :lastError REMOVE #owner, #leaseUntil, #steps',",
  },
  keyPerAttempt: {
    name: 'keyPerAttempt',
    invariant: 'steps',
    description: "a step's idempotency key depends on the attempt's SQS message",
    file: 'src/steps/MessageSteps.ts',
    find: 'idempotencyKey: stepIdempotencyKey(consumer, key, stepName),',
    replace:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
      'idempotencyKey: stepIdempotencyKey(consumer, `${key}:${this.#target.messageId}`, stepName),',
  },
  resultInHandRunAgain: {
    name: 'resultInHandRunAgain',
    invariant: 'steps',
    description:
      'after a journal write that did not land (its tries throttled, or its answers lost), the step runs again instead of its result in hand being journaled',
    file: 'src/steps/MessageSteps.ts',
    find: '    if (inHand !== undefined) {',
    replace: '    if (inHand !== undefined && false) {',
  },
  steplessCommitTakesOver: {
    name: 'steplessCommitTakesOver',
    invariant: 'payloads',
    description:
      "a step-less commit takes over an unfinished entry whatever payload's hash it holds (issue 28's first defect)",
    file: 'src/aws/entryWrites.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    find: 'ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED} OR ${ENTRY_IS_RESUMABLE}`,',
    replace:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
      'ConditionExpression: `${ENTRY_IS_ABSENT} OR ${ENTRY_HAS_EXPIRED} OR ${ENTRY_IS_RESUMABLE} OR (#status <> :completed AND #payloadHash <> :payloadHash AND #payloadHash <> :bodyHash AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :nowMillis))`,',
  },
  noSkewAllowance: {
    name: 'noSkewAllowance',
    invariant: 'fencing',
    description:
      "a lease's leaseUntil carries no allowance for clock skew, so a host whose clock runs ahead takes it over before it ran its length",
    file: 'src/constants/values.ts',
    find: '  clockSkewMillis: 5_000,',
    replace: '  clockSkewMillis: 0,',
  },
  relayChainGoesOn: {
    name: 'relayChainGoesOn',
    invariant: 'outbox FIFO',
    description: "the relay sends an outbox item's later records after one it could not send",
    file: 'src/relay/createOutboxRelay.ts',
    find: "if (outcome.status === 'failed') return;",
    replace: "if (outcome.status === 'failed' && false) return;",
  },
  relayAcknowledgesFailures: {
    name: 'relayAcknowledgesFailures',
    invariant: 'outbox nothing lost',
    description: 'the relay reports no failed record, whatever it could not send',
    file: 'src/relay/createOutboxRelay.ts',
    find: 'batchItemFailures: failures.map(({ sequenceNumber }) => ({ itemIdentifier: sequenceNumber })),',
    replace:
      'batchItemFailures: failures.slice(0, 0).map(({ sequenceNumber }) => ({ itemIdentifier: sequenceNumber })),',
  },
  groupItemPerMessage: {
    name: 'groupItemPerMessage',
    invariant: 'outbox FIFO',
    description:
      "a group's messages each get an item of their own, so their order rests on the stream across items",
    file: 'src/outbox/planOutboxItems.ts',
    find: 'if (message.groupId === undefined) return { pk: outboxItemPk(message), messages: [message] };',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    replace: 'return { pk: `msg#${message.id}`, messages: [message] };',
  },
  downstreamKeyedByMessageId: {
    name: 'downstreamKeyedByMessageId',
    invariant: 'outbox exactly-once',
    description: 'a relayed message is keyed by its SQS messageId, not by its outbox id',
    file: 'src/sources/unwrapRecord.ts',
    find: 'upstreamKey: outboxKey(outboxId),',
    replace: 'upstreamKey: outboxKey(record.messageId),',
  },
  precheckTrustsAnyEntry: {
    name: 'precheckTrustsAnyEntry',
    invariant: 'nothing lost',
    description:
      'a record whose batch read found any entry of its key (a released or leased one too) is acknowledged as a duplicate without running',
    file: 'src/record/processRecord.ts',
    find: 'if (existing && isCommitted(existing, toEpochSeconds(options.runtime.now()))) {\n    return existing;',
    replace: 'if (existing) {\n    return existing;',
  },
  innocentCommitted: {
    name: 'innocentCommitted',
    invariant: 'nothing lost',
    description:
      'a member of a shared transaction that another member cancelled is reported committed instead of being committed again',
    file: 'src/coalescing/CommitCoalescer.ts',
    find: "if (verdict === undefined || 'innocent' in verdict) this.#pending.push(member);",
    replace:
      "if (verdict === undefined || 'innocent' in verdict) member.resolve({ committed: true });",
  },
  sameItemCommitsInParallel: {
    name: 'sameItemCommitsInParallel',
    invariant: 'self-contention',
    description:
      'a commit of a batch that shares an item with a transaction of the batch still in flight is sent at once instead of waiting for it, so the invocation conflicts with itself',
    file: 'src/coalescing/planTransactions.ts',
    find: 'if (itemIds.some((id) => blocked.has(id))) {',
    replace: 'if (itemIds.some((id) => blocked.has(id)) && false) {',
  },
  copySettledBeforeItsOriginalCommitted: {
    name: 'copySettledBeforeItsOriginalCommitted',
    invariant: 'acknowledged',
    description:
      "a copy queued behind its original in the same batch is settled as a duplicate while the original's transaction is in flight, not once DynamoDB committed it, so a copy is acknowledged although its original fails",
    file: 'src/coalescing/CommitCoalescer.ts',
    find: '? (this.#committed.get(pk) ?? this.#knownEntry(pk))',
    replace:
      "? (this.#committed.get(pk) ?? this.#knownEntry(pk) ?? (this.#held.has(member.prepared.itemIds[0] ?? '') ? { ...request.entry, messageId: 'in flight' } : undefined))",
  },
  conflictsUseUpAttempts: {
    name: 'conflictsUseUpAttempts',
    invariant: 'contention',
    description:
      'a TransactionConflict gets only transactionAttempts tries, so a record fails for contention alone while its batch has time',
    file: 'src/core/retryTransient.ts',
    find: 'if (conflictsInRow >= MAX_CONFLICTS_IN_ROW) throw error;',
    replace: 'if (conflictsInRow >= options.attempts) throw error;',
  },
  aggregationMergesConditional: {
    name: 'aggregationMergesConditional',
    // A guarded counter's increments of a counter no one opened, merged into one update without
    // their condition, create it: the events planted to be refused commit.
    invariant: 'effects',
    description:
      'hot-item aggregation merges an ADD that carries a condition, and the merged update drops the condition',
    file: 'src/aws/numericAdds.ts',
    find: "  'ExpressionAttributeValues',\n]);",
    replace: "  'ExpressionAttributeValues',\n  'ConditionExpression',\n]);",
  },
  unversionedOutboxItemDropped: {
    name: 'unversionedOutboxItemDropped',
    invariant: 'outbox nothing lost',
    description:
      'the relay reads an outbox item without a format version (the previous release wrote it) as one of an unknown version, and dead-letters it unsent',
    file: 'src/relay/readOutboxRecord.ts',
    find: 'const version = formatVersionOf(value);',
    replace: "const version = formatVersionOf(value ?? 'absent');",
  },
  unversionedEntryUnread: {
    name: 'unversionedEntryUnread',
    invariant: 'explained failures',
    description:
      'the store reads an inbox entry without a format version (the previous release wrote it) as one of an unknown version, and refuses it',
    file: 'src/aws/inboxItem.ts',
    find: "const version = formatVersionOf(item[ITEM_ATTRIBUTES['#formatVersion']]);",
    replace:
      "const version = formatVersionOf(item[ITEM_ATTRIBUTES['#formatVersion']] ?? 'absent');",
  },
  claimStampsNoVersion: {
    name: 'claimStampsNoVersion',
    invariant: 'formats',
    description: 'a claim leaves the entry without the format version this release writes',
    file: 'src/aws/entryWrites.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    find: '`#expiresAt = :expiresAt, ${FORMAT_STAMP}`;',
    replace: "'#expiresAt = :expiresAt';",
  },
  redriveTrustsStaleAbsence: {
    name: 'redriveTrustsStaleAbsence',
    invariant: 'redrive',
    description:
      'the inbox-aware redrive sends back a message whose absent entry is too old to prove it never committed',
    file: 'src/operations/RedriveDecision.ts',
    find: 'if (nowMillis >= horizonMillis && facts.acceptStale !== true) return RedriveDecision.Stale;',
    replace: '',
  },
  redriveLockNotRenewed: {
    name: 'redriveLockNotRenewed',
    invariant: 'redrive',
    description:
      "the inbox-aware redrive never renews its run's lock, so a run longer than the lease acts on under a lapsed one, beside the run that took it",
    file: 'src/operations/RunLease.ts',
    find: 'if (nowMillis < renewAtMillis) return true;',
    replace: 'if (nowMillis < Number.POSITIVE_INFINITY) return true;',
  },
  redriveActsAfterLockLost: {
    name: 'redriveActsAfterLockLost',
    invariant: 'redrive',
    description:
      'the inbox-aware redrive sends or deletes the message in hand after a wait in which it lost its lock, checking the lock only before each message',
    file: 'src/operations/redriveDeadLetters.ts',
    find: 'if (!(await holds(state))) return lockLost(verdict, state);',
    replace: '',
  },
  redriveUnselectedHoldsNoGroup: {
    name: 'redriveUnselectedHoldsNoGroup',
    invariant: 'redrive',
    description:
      'the inbox-aware redrive lets a FIFO message outside its selection (--reason, --since) hold nothing back: a later message of its group goes back ahead of it',
    file: 'src/operations/redriveDeadLetters.ts',
    find: "if (outcome.action === 'kept' && groupId !== undefined) state.keptGroups.add(groupId);",
    replace:
      "if (outcome.action === 'kept' && outcome.decision !== RedriveDecision.NotSelected && groupId !== undefined) state.keptGroups.add(groupId);",
  },
  redriveIgnoresMessageIdKey: {
    name: 'redriveIgnoresMessageIdKey',
    invariant: 'redrive',
    description:
      'the inbox-aware redrive sends back a message whose consumer keys by the SQS message id, which a copy does not keep: the copy is keyed anew and can apply twice',
    file: 'src/operations/RedriveDecision.ts',
    find: 'if (facts.messageIdKey === true) return RedriveDecision.MessageIdKey;',
    replace: '',
  },
  redriveOverridesJournal: {
    name: 'redriveOverridesJournal',
    invariant: 'redrive',
    description:
      "the inbox-aware redrive sends back a message whose key's live entry holds another payload's journal, which its consumer refuses",
    file: 'src/operations/RedriveDecision.ts',
    find: 'if (entry !== undefined && bindsOtherPayload(entry, facts.hashes, nowMillis)) {',
    replace:
      'if (entry !== undefined && bindsOtherPayload(entry, facts.hashes, nowMillis) && false) {',
  },
  redriveHoldsNotExtended: {
    name: 'redriveHoldsNotExtended',
    invariant: 'redrive',
    description:
      'the redrive never extends its holds of what it received, so a run longer than a hold lets what it keeps come round again',
    file: 'src/operations/receiveAll.ts',
    find: 'if (options.now === undefined) return;',
    replace: 'if (options.now === undefined || true) return;',
  },
  resumeCountedAsTakeover: {
    name: 'resumeCountedAsTakeover',
    invariant: 'metrics',
    description:
      'a claim that resumes a released entry is counted as a lease takeover, as is every claim after the first',
    file: 'src/aws/inboxItem.ts',
    find: 'takenOver: claimedFromOwner !== undefined && claimedFromOwner !== lease.owner,',
    replace: 'takenOver: toNumber(item.attempts) > 1,',
  },
  failureRecordOverwrites: {
    name: 'failureRecordOverwrites',
    invariant: 'failure records',
    description:
      "a step-less attempt's failure record is written whatever the entry holds: it overwrites a committed entry or another attempt's lease",
    file: 'src/aws/failureRecordWrite.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    find: '`${absent} OR ${failed}`',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the library's source text, not a template
    replace: '`${absent} OR ${failed} OR attribute_exists(#pk)`',
  },
  failureRecordAfterTheDeadline: {
    name: 'failureRecordAfterTheDeadline',
    invariant: 'failure records',
    description:
      "a record that fails after its batch answered at the deadline still records its failure on its entry, which the batch's answer does not wait for",
    file: 'src/record/processRecord.ts',
    find: 'if (signal.aborted) return settledLate(record, identity?.key, error, options);',
    replace:
      'if (signal.aborted) { await recordFailedAttempt({ messageId: record.messageId, identity, error, leaseSought: false }, options); return settledLate(record, identity?.key, error, options); }',
  },
  publishedNotRecorded: {
    name: 'publishedNotRecorded',
    invariant: 'outbox',
    description:
      'a commit that publishes does not record the outbox ids on its entry, so `sqs-inbox message` cannot name them',
    file: 'src/aws/entryWrites.ts',
    find: '  return { ...entry, published };',
    replace: '  return entry;',
  },
  retryDelayIgnored: {
    name: 'retryDelayIgnored',
    invariant: 'retry delays',
    description:
      'the visibility change of a failed record is sent with 0 s instead of the delay the processor chose and logged, so it comes back at once',
    file: 'src/aws/SqsVisibilityChanger.ts',
    find: 'VisibilityTimeout: visibilityTimeoutSeconds,',
    replace: 'VisibilityTimeout: 0,',
  },
  retryDelayPastCap: {
    name: 'retryDelayPastCap',
    invariant: 'retry caps',
    description:
      "the backoff's step doubles with every receive past maxDelaySeconds: a delay is drawn beyond the cap",
    file: 'src/retry/retryDelay.ts',
    find: 'const stepSeconds = Math.min(backoff.maxDelaySeconds, backoff.firstDelaySeconds * 2 ** exponent);',
    replace: 'const stepSeconds = backoff.firstDelaySeconds * 2 ** exponent;',
  },
} as const satisfies Record<string, Mutant>;

/** One of the names of {@link MUTANTS}. */
export type MutantName = keyof typeof MUTANTS;

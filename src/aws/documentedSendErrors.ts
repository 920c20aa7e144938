/**
 * How the relay takes a documented error of a send: `passing` is retried (the stream record
 * fails, Lambda retries it and keeps each group's order), `refused` is dead-lettered for good.
 *
 * @example
 * ```ts
 * if (verdict === SendVerdict.Passing) throw new DestinationUnavailableError(destination, code);
 * ```
 */
export const SendVerdict = { Passing: 'passing', Refused: 'refused' } as const;
/** One of the values of `SendVerdict`. */
export type SendVerdict = (typeof SendVerdict)[keyof typeof SendVerdict];

/** A documented error: the SDK's exception class name, the code on the wire, the verdict. */
export type DocumentedError = readonly [name: string, code: string, verdict: SendVerdict];

const { Passing, Refused } = SendVerdict;

// KMS: a key that is disabled, or in another state that changes back without a deploy (pending
// import, its custom key store disconnected, pending deletion until cancelled), is `passing`:
// the record is retried in order, and if the state outlasts the mapping's retries, Lambda gives
// the batch up to the relay's dead-letter queue with its place in the stream (redriveOutbox
// relays it within 24 hours). A key that is missing, not granted, of the wrong usage or not
// subscribed is fixed by a deploy: `refused`, the message dead-lettered in full.

/**
 * The errors every AWS query and JSON service documents for any action (throttling, a failing
 * service, a signature or credentials problem), plus the expired credentials the SDK renews.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/CommonErrors.html,
 * https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html,
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/CommonErrors.html
 *
 * @example
 * ```ts
 * COMMON_ERRORS.find(([name]) => name === 'ThrottlingException'); // [..., 'passing']
 * ```
 */
export const COMMON_ERRORS: readonly DocumentedError[] = [
  ['ThrottlingException', 'Throttling', Passing],
  ['ThrottlingException', 'ThrottlingException', Passing],
  ['InternalFailure', 'InternalFailure', Passing],
  ['ServiceUnavailable', 'ServiceUnavailable', Passing],
  ['RequestExpired', 'RequestExpired', Passing],
  ['ExpiredTokenException', 'ExpiredToken', Passing],
  ['AccessDeniedException', 'AccessDeniedException', Refused],
  ['AccessDenied', 'AccessDenied', Refused],
  ['IncompleteSignature', 'IncompleteSignature', Refused],
  ['InvalidAction', 'InvalidAction', Refused],
  ['InvalidClientTokenId', 'InvalidClientTokenId', Refused],
  ['NotAuthorized', 'NotAuthorized', Refused],
  ['OptInRequired', 'OptInRequired', Refused],
  ['ValidationError', 'ValidationError', Refused],
];

/**
 * SQS `SendMessage`'s errors (JSON protocol, query-compatible: the SDK's `name` is the class,
 * `Code` the query code from the `x-amzn-query-error` header).
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html
 *
 * @example
 * ```ts
 * SQS_SEND_MESSAGE_ERRORS.find(([name]) => name === 'KmsThrottled'); // [..., 'passing']
 * ```
 */
export const SQS_SEND_MESSAGE_ERRORS: readonly DocumentedError[] = [
  ['RequestThrottled', 'RequestThrottled', Passing],
  ['KmsThrottled', 'KMS.ThrottlingException', Passing],
  ['KmsDisabled', 'KMS.DisabledException', Passing],
  ['KmsInvalidState', 'KMS.InvalidStateException', Passing],
  ['KmsAccessDenied', 'KMS.AccessDeniedException', Refused],
  ['KmsInvalidKeyUsage', 'KMS.InvalidKeyUsageException', Refused],
  ['KmsNotFound', 'KMS.NotFoundException', Refused],
  ['KmsOptInRequired', 'KMS.OptInRequired', Refused],
  ['InvalidAddress', 'InvalidAddress', Refused],
  ['InvalidMessageContents', 'InvalidMessageContents', Refused],
  ['InvalidSecurity', 'InvalidSecurity', Refused],
  ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', Refused],
  ['UnsupportedOperation', 'AWS.SimpleQueueService.UnsupportedOperation', Refused],
];

/**
 * SNS `Publish`'s errors (query protocol: the SDK's `name` is the class, `Code` the wire code),
 * and `Throttled`, SNS's own throttling (HTTP 429).
 * https://docs.aws.amazon.com/sns/latest/api/API_Publish.html
 *
 * @example
 * ```ts
 * SNS_PUBLISH_ERRORS.find(([, code]) => code === 'KMSThrottling'); // [..., 'passing']
 * ```
 */
export const SNS_PUBLISH_ERRORS: readonly DocumentedError[] = [
  ['ThrottledException', 'Throttled', Passing],
  ['InternalErrorException', 'InternalError', Passing],
  ['KMSThrottlingException', 'KMSThrottling', Passing],
  ['KMSDisabledException', 'KMSDisabled', Passing],
  ['KMSInvalidStateException', 'KMSInvalidState', Passing],
  ['KMSAccessDeniedException', 'KMSAccessDenied', Refused],
  ['KMSNotFoundException', 'KMSNotFound', Refused],
  ['KMSOptInRequired', 'KMSOptInRequired', Refused],
  ['AuthorizationErrorException', 'AuthorizationError', Refused],
  ['EndpointDisabledException', 'EndpointDisabled', Refused],
  ['InvalidParameterException', 'InvalidParameter', Refused],
  ['InvalidParameterValueException', 'ParameterValueInvalid', Refused],
  ['InvalidSecurityException', 'InvalidSecurity', Refused],
  ['NotFoundException', 'NotFound', Refused],
  ['PlatformApplicationDisabledException', 'PlatformApplicationDisabled', Refused],
  ['ValidationException', 'ValidationException', Refused],
];

/**
 * EventBridge `PutEvents`: its error as a request (`InternalException`) and the `ErrorCode`s of a
 * failed entry in a 200 answer (the code is both name and wire code).
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html and
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEventsResultEntry.html
 *
 * @example
 * ```ts
 * PUT_EVENTS_ERRORS.find(([, code]) => code === 'MalformedDetail'); // [..., 'refused']
 * ```
 */
export const PUT_EVENTS_ERRORS: readonly DocumentedError[] = [
  ['InternalException', 'InternalException', Passing],
  ['ThrottlingException', 'ThrottlingException', Passing],
  ['InternalFailure', 'InternalFailure', Passing],
  ['AccessDeniedException', 'AccessDeniedException', Refused],
  ['InvalidAccountIdException', 'InvalidAccountIdException', Refused],
  ['InvalidArgument', 'InvalidArgument', Refused],
  ['MalformedDetail', 'MalformedDetail', Refused],
  ['RedactionFailure', 'RedactionFailure', Refused],
  ['NotAuthorizedForSourceException', 'NotAuthorizedForSourceException', Refused],
  ['NotAuthorizedForDetailTypeException', 'NotAuthorizedForDetailTypeException', Refused],
];

/**
 * The DNS suffix of SQS endpoints, by AWS partition (the ARN's second field): the SDK's partition
 * table's, so that the URL's host is the one the client resolves (a different host makes the SQS
 * client send to the URL's and warn on every call).
 */
const PARTITION_DOMAINS: Readonly<Record<string, string>> = {
  aws: 'amazonaws.com',
  'aws-cn': 'amazonaws.com.cn',
  'aws-us-gov': 'amazonaws.com',
  'aws-eusc': 'amazonaws.eu',
  'aws-iso': 'c2s.ic.gov',
  'aws-iso-b': 'sc2s.sgov.gov',
  'aws-iso-e': 'cloud.adc-e.uk',
  'aws-iso-f': 'csp.hci.ic.gov',
};

/**
 * The URL of the queue an SQS ARN names (`arn:<partition>:sqs:<region>:<account>:<name>`), as
 * `GetQueueUrl` answers it, without a call; undefined for what is not such an ARN or names a
 * partition this does not know. The SDK's SQS client sends to a queue URL's host unless it is
 * built with an `endpoint` or with `useQueueUrlAsEndpoint: false`, which makes it honour
 * `AWS_ENDPOINT_URL_SQS` and FIPS endpoints; SQS reads the queue from the URL's path.
 *
 * @example
 * ```ts
 * queueUrlOfArn('arn:aws:sqs:eu-west-1:123456789012:orders');
 * // => 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders'
 * ```
 */
export function queueUrlOfArn(arn: string | undefined): string | undefined {
  const [prefix, partition = '', service, region, account, name, ...rest] = arn?.split(':') ?? [];
  const domain = Object.hasOwn(PARTITION_DOMAINS, partition)
    ? PARTITION_DOMAINS[partition]
    : undefined;
  if (prefix !== 'arn' || service !== 'sqs' || domain === undefined || rest.length > 0) {
    return undefined;
  }
  if (!region || !/^\d{12}$/.test(account ?? '') || !name) return undefined;
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

import {
  type CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  FilterLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';

/**
 * A deployed function's distinct log lines containing every one of `patterns`, across all pages.
 * The function logs to its own log group (LoggingConfig); an emulator may also use the default
 * `/aws/lambda/<name>`, so both are read and identical lines are counted once.
 */
export async function functionLogLines(
  logs: CloudWatchLogsClient,
  function_: { readonly logGroupName: string; readonly functionName: string },
  ...patterns: string[]
): Promise<string[]> {
  const groups = [function_.logGroupName, `/aws/lambda/${function_.functionName}`];
  const lines = new Set<string>();
  for (const logGroupName of groups) {
    const { logGroups = [] } = await logs.send(
      new DescribeLogGroupsCommand({ logGroupNamePrefix: logGroupName }),
    );
    if (!logGroups.some((group) => group.logGroupName === logGroupName)) continue;
    let nextToken: string | undefined;
    do {
      const page = await logs.send(new FilterLogEventsCommand({ logGroupName, nextToken }));
      for (const { message = '' } of page.events ?? []) {
        if (patterns.every((pattern) => message.includes(pattern))) lines.add(message.trim());
      }
      nextToken = page.nextToken;
    } while (nextToken);
  }
  return [...lines];
}

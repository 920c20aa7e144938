import {
  type CloudFormationClient,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';

/**
 * Every resource of a stack, page by page. `DescribeStackResources` answers at most 100
 * resources without a way to ask for more, so a stack past 100 would lose some silently.
 *
 * @example
 * ```ts
 * const resources = await listStackResources(cloudFormation, 'SqsInboxReference');
 * ```
 */
export async function listStackResources(
  cloudFormation: CloudFormationClient,
  stackName: string,
): Promise<StackResourceSummary[]> {
  const resources: StackResourceSummary[] = [];
  for await (const page of paginateListStackResources(
    { client: cloudFormation },
    { StackName: stackName },
  ))
    resources.push(...(page.StackResourceSummaries ?? []));
  return resources;
}

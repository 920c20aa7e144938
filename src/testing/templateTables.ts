import type { CreateTableInput, KeySchemaElement } from '@aws-sdk/client-dynamodb';
import { InvalidConfigurationError } from '../errors/configurationErrors.js';

/**
 * A CloudFormation template as CDK synthesizes it (`Template.fromStack(stack).toJSON()`, or a
 * `cdk.out/*.template.json` read as JSON): only its `Resources` are read.
 *
 * @example
 * ```ts
 * import { Template } from 'aws-cdk-lib/assertions';
 * const template: CloudFormationTemplate = Template.fromStack(stack).toJSON();
 * ```
 * @public
 */
export interface CloudFormationTemplate {
  /** The template's resources by logical id; the DynamoDB tables among them are read. */
  readonly Resources?: Readonly<
    Record<string, { readonly Type?: string; readonly Properties?: unknown }>
  >;
}

/** A table of a template: the `CreateTable` request, and its TTL attribute if TTL is on. */
export interface TemplateTable {
  readonly logicalId: string;
  readonly input: CreateTableInput;
  readonly timeToLiveAttribute?: string;
}

const TABLE_TYPES = new Set(['AWS::DynamoDB::Table', 'AWS::DynamoDB::GlobalTable']);

interface TableProperties {
  readonly TableName?: unknown;
  readonly KeySchema?: readonly KeySchemaElement[];
  readonly AttributeDefinitions?: ReadonlyArray<{ AttributeName?: string; AttributeType?: string }>;
  readonly TimeToLiveSpecification?: { AttributeName?: string; Enabled?: unknown };
}

/**
 * The DynamoDB tables of a template (`AWS::DynamoDB::Table` and `AWS::DynamoDB::GlobalTable`,
 * as `Table` and `TableV2` synthesize): each named by its `TableName` when that is a plain
 * string, else by its logical id. Secondary indexes are left out (the model answers no
 * `IndexName`), and so are the attribute definitions only they use.
 *
 * @example
 * ```ts
 * templateTables(Template.fromStack(stack).toJSON()).map((table) => table.input.TableName);
 * ```
 */
export function templateTables(template: CloudFormationTemplate): TemplateTable[] {
  const resources = template.Resources;
  if (resources === undefined || typeof resources !== 'object')
    throw new InvalidConfigurationError('template', template, 'a template with `Resources`');
  return Object.entries(resources).flatMap(([logicalId, resource]) => {
    if (!TABLE_TYPES.has(resource.Type ?? '')) return [];
    const properties = (resource.Properties ?? {}) as TableProperties;
    const keySchema = properties.KeySchema ?? [];
    const keyNames = new Set(keySchema.map((element) => element.AttributeName));
    const ttl = properties.TimeToLiveSpecification;
    const input: CreateTableInput = {
      TableName: typeof properties.TableName === 'string' ? properties.TableName : logicalId,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [...keySchema],
      AttributeDefinitions: (properties.AttributeDefinitions ?? [])
        .filter((definition) => keyNames.has(definition.AttributeName))
        .map((definition) => ({ ...definition }) as never),
    };
    return [
      {
        logicalId,
        input,
        ...(ttl?.AttributeName !== undefined && ttl.Enabled === true
          ? { timeToLiveAttribute: ttl.AttributeName }
          : {}),
      },
    ];
  });
}

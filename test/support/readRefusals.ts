import { allOfP, inP, query, type RefusalCase } from './queryRefusals.js';

/**
 * The refusals of filters, projections, `Select`, `Limit` and start keys in the conformance
 * suite's Query and Scan tests; see test/support/queryRefusals.ts for the table they are sent to.
 */

/** Filters, projections, Select, Limit and start keys DynamoDB refuses. */
export const READ_REFUSALS: readonly RefusalCase[] = [
  query(
    'a filter on the sort key',
    { ...allOfP, FilterExpression: 'sk > :p' },
    /Filter Expression can only contain non-primary key attributes: Primary key attribute: sk/,
    'filters on it',
  ),
  query(
    'a filter on the partition key',
    { ...allOfP, FilterExpression: 'pk = :p' },
    /Filter Expression can only contain non-primary key attributes: Primary key attribute: pk/,
    'filters on it',
  ),
  query(
    'a filter on a path into a key',
    { ...allOfP, FilterExpression: 'sk.x = :p' },
    /Key attributes must be scalars/,
    'filters on it',
  ),
  query(
    'a filter of a syntax error',
    { ...allOfP, FilterExpression: 'n >' },
    /Invalid FilterExpression: Syntax error; token: "<EOF>", near: ">"/,
  ),
  query(
    'a filter ordering a boolean',
    { ...inP('pk = :p', { ':b': true }), FilterExpression: 'n < :b' },
    /Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL/,
    'filters with it',
  ),
  query(
    'overlapping projection paths',
    { ...allOfP, ProjectionExpression: 'm, m.x' },
    /Invalid ProjectionExpression: Two document paths overlap with each other/,
  ),
  query(
    'conflicting projection paths',
    { ...allOfP, ProjectionExpression: 'm.x, m[0]' },
    /Invalid ProjectionExpression: Two document paths conflict with each other/,
    'projects both',
  ),
  query(
    'a projection of a syntax error',
    { ...allOfP, ProjectionExpression: 'sk,' },
    /Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","/,
    'ignores the comma',
  ),
  query(
    'a reserved word in a projection',
    { ...allOfP, ProjectionExpression: 'name' },
    /Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name/,
  ),
  query(
    'a projection of a path into a key',
    { ...allOfP, ProjectionExpression: 'pk.x' },
    /Key attributes must be scalars/,
    'projects nothing',
  ),
  query(
    'a projection name never defined',
    { ...allOfP, ProjectionExpression: '#z' },
    /Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #z/,
  ),
  query(
    'a value no expression uses',
    inP('pk = :p', { ':z': 1 }),
    /Value provided in ExpressionAttributeValues unused in expressions: keys: \{:z\}/,
  ),
  query(
    'Select COUNT with a projection',
    { ...allOfP, Select: 'COUNT', ProjectionExpression: 'sk' },
    /Cannot specify the ProjectionExpression when choosing to get only the Count/,
  ),
  query(
    'Select ALL_ATTRIBUTES with a projection',
    { ...allOfP, Select: 'ALL_ATTRIBUTES', ProjectionExpression: 'sk' },
    /Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES/,
  ),
  query(
    'Select SPECIFIC_ATTRIBUTES without a projection',
    { ...allOfP, Select: 'SPECIFIC_ATTRIBUTES' },
    /Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES/,
  ),
  query(
    'Select ALL_PROJECTED_ATTRIBUTES without an index',
    { ...allOfP, Select: 'ALL_PROJECTED_ATTRIBUTES' },
    /ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName/,
  ),
  query(
    'an unknown Select',
    { ...allOfP, Select: 'SOME' },
    // Local: "Select must be ALL_ATTRIBUTES, …"; MiniStack: "Value 'SOME' at 'select' … [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, …]".
    /[Ss]elect\b.*ALL_ATTRIBUTES/,
  ),
  query('a Limit of 0', { ...allOfP, Limit: 0 }, /[Ll]imit.*greater than or equal to 1/),
  query(
    'a start key in another partition',
    { ...allOfP, ExclusiveStartKey: { pk: 'q', sk: 1 } },
    /The provided starting key does not match the range key predicate/,
  ),
  query(
    'a start key outside the sort condition',
    { ...inP('pk = :p AND sk > :s', { ':s': 10 }), ExclusiveStartKey: { pk: 'p', sk: 2 } },
    /The provided starting key does not match the range key predicate/,
  ),
  query(
    'a start key without the sort key',
    { ...allOfP, ExclusiveStartKey: { pk: 'p' } },
    /Exclusive Start Key must have same size as table's key schema/,
    'says the starting key is invalid',
  ),
  query(
    'a start key with another attribute',
    { ...allOfP, ExclusiveStartKey: { pk: 'p', sk: 1, n: 1 } },
    /Exclusive Start Key must have same size as table's key schema/,
    'ignores the attribute',
  ),
  query(
    'a start key of the wrong type',
    { ...allOfP, ExclusiveStartKey: { pk: 'p', sk: 'one' } },
    /Type mismatch/,
    'reads on',
  ),
  {
    refusal: 'values given to a Scan without a filter',
    operation: 'Scan',
    input: { ExpressionAttributeValues: { ':p': 'p' } },
    message: /ExpressionAttributeValues can only be specified when using expressions/,
  },
  {
    refusal: 'a Scan filter on a path into a key',
    operation: 'Scan',
    input: { FilterExpression: 'pk.x = :p', ExpressionAttributeValues: { ':p': 'p' } },
    message: /Key attributes must be scalars/,
    miniStack: 'filters on it',
  },
  {
    refusal: 'a Scan start key without the sort key',
    operation: 'Scan',
    input: { ExclusiveStartKey: { pk: 'p' } },
    message: /Exclusive Start Key must have same size as table's key schema/,
    miniStack: 'says the starting key is invalid',
  },
  {
    refusal: 'a Scan Limit of 0',
    operation: 'Scan',
    input: { Limit: 0 },
    message: /[Ll]imit.*greater than or equal to 1/,
  },
];

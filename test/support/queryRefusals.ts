/**
 * The key-condition refusals of the conformance suite's Query and Scan tests
 * (test/integration/simulatedQueryRefusals.test.ts), each sent to a table with key `pk` (S) and
 * `sk` (N) whose partition `p` holds items — or, for STRING_KEY_CONDITION_REFUSALS, `sk` (S) —
 * and checked on DynamoDB Local, MiniStack and the simulator. DynamoDB Local is the reference: `message` is the key part of its wording. A case
 * with `miniStack` is one MiniStack gets wrong (it says what MiniStack does instead); the suite
 * expects it to fail there.
 */

/** One request DynamoDB refuses with a `ValidationException`. */
export interface RefusalCase {
  readonly refusal: string;
  readonly operation: 'Query' | 'Scan';
  /** The request without `TableName`, in lib-dynamodb's native form. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly message: RegExp;
  readonly miniStack?: string;
}

/** A Query of partition `p` with this key condition and values (`:p` is `p`). */
export const inP = (KeyConditionExpression: string, values: Record<string, unknown> = {}) => ({
  KeyConditionExpression,
  ExpressionAttributeValues: { ':p': 'p', ...values },
});
/** A Query of all of partition `p`. */
export const allOfP = inP('pk = :p');

/** A refused Query. */
export const query = (
  refusal: string,
  input: Record<string, unknown>,
  message: RegExp,
  miniStack?: string,
): RefusalCase => ({ refusal, operation: 'Query', input, message, miniStack });

/** Key conditions DynamoDB refuses. */
export const KEY_CONDITION_REFUSALS: readonly RefusalCase[] = [
  query(
    'a Query without a key condition',
    {},
    /Either the KeyConditions or KeyConditionExpression parameter must be specified/,
    'says the condition missed the key',
  ),
  query(
    'a condition on the sort key only',
    inP('sk = :s', { ':p': undefined, ':s': 1 }),
    /Query condition missed key schema element/,
  ),
  query(
    'a condition on a non-key attribute',
    inP('pk = :p AND n = :n', { ':n': 1 }),
    /Query condition missed key schema element/,
  ),
  query(
    'two conditions on the sort key',
    inP('pk = :p AND sk > :a AND sk < :b', { ':a': 1, ':b': 9 }),
    /must only contain one condition per key/,
  ),
  query(
    'two conditions on the partition key',
    inP('pk = :p AND pk = :q', { ':q': 'q' }),
    /must only contain one condition per key/,
  ),
  query(
    'OR',
    inP('pk = :p OR sk = :s', { ':s': 1 }),
    /Invalid operator used in KeyConditionExpression: OR/,
    'answers as if it were AND',
  ),
  query(
    'NOT',
    inP('NOT pk = :p'),
    /Invalid operator used in KeyConditionExpression: NOT/,
    'answers',
  ),
  query(
    '<> on the sort key',
    inP('pk = :p AND sk <> :s', { ':s': 1 }),
    /Invalid operator used in KeyConditionExpression: <>/,
    'answers',
  ),
  query(
    'IN',
    inP('pk IN (:p)'),
    /Invalid operator used in KeyConditionExpression: IN/,
    'says the condition missed the key',
  ),
  query(
    'contains()',
    inP('pk = :p AND contains(sk, :s)', { ':s': 1 }),
    /Invalid operator used in KeyConditionExpression: contains/,
    'answers',
  ),
  query(
    'attribute_exists()',
    inP('pk = :p AND attribute_exists(sk)'),
    /Invalid operator used in KeyConditionExpression: attribute_exists/,
    'answers',
  ),
  query(
    'size() of a key',
    inP('pk = :p AND size(sk) > :s', { ':s': 1 }),
    /KeyConditionExpressions cannot contain nested operations/,
    'answers',
  ),
  query(
    'three conditions',
    inP('pk = :p AND sk > :s AND n = :s', { ':s': 1 }),
    /Conditions can be of length 1 or 2 only/,
    'counts them against the key schema',
  ),
  query(
    '< on the partition key',
    inP('pk < :p'),
    /Query key condition not supported/,
    'says the condition missed the key',
  ),
  query(
    'begins_with() on the partition key',
    inP('begins_with(pk, :p)'),
    /Query key condition not supported/,
    'says the condition missed the key',
  ),
  query(
    'a path into the partition key',
    inP('pk.x = :p'),
    /Key attributes must be scalars/,
    'says the condition missed the key',
  ),
  query(
    'a nested non-key attribute',
    inP('pk = :p AND m.x = :p'),
    /KeyConditionExpressions cannot have conditions on nested attributes/,
  ),
  query(
    'a condition of two values',
    inP('pk = :p AND :s = :s', { ':s': 1 }),
    /No key attribute specified/,
    'answers',
  ),
  query(
    'a condition of two attributes',
    { KeyConditionExpression: 'pk = sk' },
    /Multiple attribute names used in one condition/,
    'says the condition missed the key',
  ),
  query(
    'begins_with() with the key second',
    inP('pk = :p AND begins_with(:p, sk)'),
    /begins_with operator must have the key attribute as its first operand/,
    'reports a syntax error',
  ),
  query(
    'a partition value of another type',
    inP('pk = :n', { ':p': undefined, ':n': 1 }),
    /Condition parameter type does not match schema type/,
  ),
  query(
    'a string prefix for a number sort key',
    inP('pk = :p AND begins_with(sk, :s)', { ':s': '1' }),
    /Condition parameter type does not match schema type/,
  ),
  query(
    'a number prefix',
    inP('pk = :p AND begins_with(sk, :s)', { ':s': 1 }),
    /Incorrect operand type for operator or function; operator or function: begins_with, operand type: N/,
  ),
  query(
    'BETWEEN bounds in the wrong order',
    inP('pk = :p AND sk BETWEEN :a AND :b', { ':a': 9, ':b': 1 }),
    /Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound/,
  ),
  query(
    'an empty partition value',
    inP('pk = :e', { ':p': undefined, ':e': '' }),
    /cannot contain an empty string value. Key: pk/,
  ),
  query(
    'a syntax error',
    inP('pk = :p AND'),
    /Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "AND"/,
  ),
];

const EMPTY_SORT_VALUE = /cannot contain an empty string value\. Key: sk$/;
const SORT_VALUE_TOO_LARGE =
  /^One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes$/;
/** A sort key value of 1,026 bytes in UTF-8 (513 characters). */
const OVER_1024_BYTES = 'é'.repeat(513);

/** Key conditions DynamoDB refuses on a string sort key: an empty value, a value over 1,024 bytes. */
export const STRING_KEY_CONDITION_REFUSALS: readonly RefusalCase[] = [
  ...['sk = :e', 'sk > :e', 'begins_with(sk, :e)', 'sk BETWEEN :e AND :z'].map((condition) =>
    query(
      `an empty sort key value in ${condition}`,
      inP(`pk = :p AND ${condition}`, {
        ':e': '',
        ...(condition.includes(':z') ? { ':z': 'z' } : {}),
      }),
      EMPTY_SORT_VALUE,
    ),
  ),
  query(
    'a sort key value over 1,024 bytes',
    inP('pk = :p AND sk = :s', { ':s': OVER_1024_BYTES }),
    SORT_VALUE_TOO_LARGE,
    'answers',
  ),
  query(
    'a begins_with() prefix over 1,024 bytes',
    inP('pk = :p AND begins_with(sk, :s)', { ':s': OVER_1024_BYTES }),
    SORT_VALUE_TOO_LARGE,
    'answers',
  ),
  query(
    'a BETWEEN bound over 1,024 bytes, before an empty one',
    inP('pk = :p AND sk BETWEEN :e AND :s', { ':e': '', ':s': OVER_1024_BYTES }),
    SORT_VALUE_TOO_LARGE,
    'refuses the empty bound instead',
  ),
];

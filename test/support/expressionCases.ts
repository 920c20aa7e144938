import { NumberValue } from '@aws-sdk/lib-dynamodb';

/**
 * The cases of the conformance suite's expression tests, each checked on DynamoDB Local,
 * MiniStack and the simulator. Only behaviour the two emulators share is here; where they
 * differ, the simulator's choice is pinned by unit tests (test/unit/sim).
 */

/** The item every condition case is evaluated on. */
export const CONDITION_ITEM = {
  n: 10,
  s: 'hello',
  u: 'é😀',
  cp: '😀',
  b: new Uint8Array([1, 2, 255]),
  t: true,
  z: null,
  l: ['x', 2],
  m: { k: 'v', deep: { x: 1 } },
  ss: new Set(['a', 'b']),
  ns: new Set([1, 2, 3]),
  big: NumberValue.from('12345678901234567890123456789012345678'),
  e: '',
  'a.b': 'dotted',
};

interface ConditionCase {
  readonly behaviour: string;
  readonly expression: string;
  readonly values?: Record<string, unknown>;
  readonly names?: Record<string, string>;
  readonly expected: boolean;
}

const exists = (path: string) => `attribute_exists(${path})`;

/** Conditions and whether they hold on {@link CONDITION_ITEM}. */
export const CONDITION_CASES: readonly ConditionCase[] = [
  {
    behaviour: 'compares numbers by value, not as text',
    expression: 'n > :v',
    values: { ':v': 9 },
    expected: true,
  },
  {
    behaviour: 'treats 10 and 10.000 as one number',
    expression: 'n = :v',
    values: { ':v': NumberValue.from('10.000') },
    expected: true,
  },
  {
    behaviour: 'orders 38-digit numbers exactly',
    expression: 'big > :v',
    values: { ':v': NumberValue.from('12345678901234567890123456789012345677') },
    expected: true,
  },
  {
    behaviour: 'finds 38-digit numbers equal whatever their notation',
    expression: 'big = :v',
    values: { ':v': NumberValue.from('12345678901234567890123456789012345678.0') },
    expected: true,
  },
  {
    behaviour: 'is false for < at equality',
    expression: 'n < :v',
    values: { ':v': 10 },
    expected: false,
  },
  {
    behaviour: 'is false for > at equality',
    expression: 'n > :v',
    values: { ':v': 10 },
    expected: false,
  },
  {
    behaviour: 'orders strings alphabetically',
    expression: 's < :v',
    values: { ':v': 'help' },
    expected: true,
  },
  {
    behaviour: 'orders strings by code point: an emoji after U+FFFF',
    expression: 'cp > :v',
    values: { ':v': '\uFFFF' },
    expected: true,
  },
  {
    behaviour: 'orders binaries by unsigned byte',
    expression: 'b > :v',
    values: { ':v': new Uint8Array([1, 2, 3]) },
    expected: true,
  },
  {
    behaviour: 'is false for < between a number and a string',
    expression: 'n < :v',
    values: { ':v': '10' },
    expected: false,
  },
  {
    behaviour: 'is false for = between a number and a string',
    expression: 'n = :v',
    values: { ':v': '10' },
    expected: false,
  },
  {
    behaviour: 'is true for <> between a number and a string',
    expression: 'n <> :v',
    values: { ':v': '10' },
    expected: true,
  },
  {
    behaviour: 'is false for = with an absent attribute',
    expression: 'nope = :v',
    values: { ':v': 'x' },
    expected: false,
  },
  {
    behaviour: 'is true for <> with an absent attribute',
    expression: 'nope <> :v',
    values: { ':v': 'x' },
    expected: true,
  },
  {
    behaviour: 'compares lists element by element',
    expression: 'l = :v',
    values: { ':v': ['x', 2] },
    expected: true,
  },
  {
    behaviour: 'compares sets in any order',
    expression: 'ss = :v',
    values: { ':v': new Set(['b', 'a']) },
    expected: true,
  },
  { behaviour: 'compares booleans', expression: 't = :v', values: { ':v': true }, expected: true },
  { behaviour: 'compares nulls', expression: 'z = :v', values: { ':v': null }, expected: true },
  {
    behaviour: 'reads nested map paths',
    expression: 'm.deep.x = :v',
    values: { ':v': 1 },
    expected: true,
  },
  { behaviour: 'reads list indexes', expression: 'l[1] = :v', values: { ':v': 2 }, expected: true },
  {
    behaviour: 'treats a list index past the end as absent',
    expression: exists('l[5]'),
    expected: false,
  },
  {
    behaviour: 'reads an attribute whose name holds a dot through a #name',
    expression: '#ab = :v',
    names: { '#ab': 'a.b' },
    values: { ':v': 'dotted' },
    expected: true,
  },
  {
    behaviour: 'includes both bounds in BETWEEN',
    expression: 'n BETWEEN :a AND :b',
    values: { ':a': 1, ':b': 10 },
    expected: true,
  },
  {
    behaviour: 'is false for BETWEEN bounds of another type',
    expression: 'n BETWEEN :a AND :b',
    values: { ':a': '1', ':b': '9' },
    expected: false,
  },
  {
    behaviour: 'finds a value IN a list of candidates',
    expression: 'n IN (:a, :b)',
    values: { ':a': 1, ':b': 10 },
    expected: true,
  },
  {
    behaviour: 'is false for IN when no candidate is equal',
    expression: 's IN (:a, :b)',
    values: { ':a': 1, ':b': 'x' },
    expected: false,
  },
  {
    behaviour: 'matches a string prefix with begins_with',
    expression: 'begins_with(s, :v)',
    values: { ':v': 'he' },
    expected: true,
  },
  {
    behaviour: 'matches a binary prefix with begins_with',
    expression: 'begins_with(b, :v)',
    values: { ':v': new Uint8Array([1]) },
    expected: true,
  },
  {
    behaviour: 'finds a substring with contains',
    expression: 'contains(s, :v)',
    values: { ':v': 'ell' },
    expected: true,
  },
  {
    behaviour: 'finds a set member with contains',
    expression: 'contains(ss, :v)',
    values: { ':v': 'b' },
    expected: true,
  },
  {
    behaviour: 'finds a list element with contains',
    expression: 'contains(l, :v)',
    values: { ':v': 2 },
    expected: true,
  },
  {
    behaviour: 'is false for contains on a number',
    expression: 'contains(n, :v)',
    values: { ':v': 1 },
    expected: false,
  },
  {
    behaviour: 'is false for contains of a set in a set',
    expression: 'contains(ss, :v)',
    values: { ':v': new Set(['a']) },
    expected: false,
  },
  { behaviour: 'sizes a string', expression: 'size(s) = :v', values: { ':v': 5 }, expected: true },
  {
    behaviour: 'sizes a string in UTF-16 units',
    expression: 'size(u) = :v',
    values: { ':v': 3 },
    expected: true,
  },
  {
    behaviour: 'sizes an empty string as 0',
    expression: 'size(e) = :v',
    values: { ':v': 0 },
    expected: true,
  },
  {
    behaviour: 'sizes a binary in bytes',
    expression: 'size(b) = :v',
    values: { ':v': 3 },
    expected: true,
  },
  {
    behaviour: 'sizes a list by its elements',
    expression: 'size(l) = :v',
    values: { ':v': 2 },
    expected: true,
  },
  {
    behaviour: 'sizes a map by its keys',
    expression: 'size(m) = :v',
    values: { ':v': 2 },
    expected: true,
  },
  {
    behaviour: 'sizes a set by its members',
    expression: 'size(ns) = :v',
    values: { ':v': 3 },
    expected: true,
  },
  {
    behaviour: 'gives a number no size (=)',
    expression: 'size(n) = :v',
    values: { ':v': 2 },
    expected: false,
  },
  {
    behaviour: 'gives a number no size (<>)',
    expression: 'size(n) <> :v',
    values: { ':v': 2 },
    expected: true,
  },
  {
    behaviour: 'gives a boolean no size',
    expression: 'size(t) = :v',
    values: { ':v': 1 },
    expected: false,
  },
  {
    behaviour: 'tells a string by attribute_type',
    expression: 'attribute_type(s, :v)',
    values: { ':v': 'S' },
    expected: true,
  },
  {
    behaviour: 'tells a string set by attribute_type',
    expression: 'attribute_type(ss, :v)',
    values: { ':v': 'SS' },
    expected: true,
  },
  {
    behaviour: 'is false for attribute_type of another type',
    expression: 'attribute_type(n, :v)',
    values: { ':v': 'S' },
    expected: false,
  },
  {
    behaviour: 'binds AND tighter than OR (left)',
    expression: `${exists('nope')} AND ${exists('n')} OR ${exists('s')}`,
    expected: true,
  },
  {
    behaviour: 'binds AND tighter than OR (right)',
    expression: `${exists('s')} OR ${exists('n')} AND ${exists('nope')}`,
    expected: true,
  },
  {
    behaviour: 'binds NOT tighter than AND',
    expression: `NOT ${exists('nope')} AND ${exists('nope')}`,
    expected: false,
  },
  {
    behaviour: 'binds NOT tighter than OR',
    expression: `NOT ${exists('n')} OR ${exists('s')}`,
    expected: true,
  },
  { behaviour: 'negates twice with NOT NOT', expression: `NOT NOT ${exists('n')}`, expected: true },
  {
    behaviour: 'groups with parentheses',
    expression: `${exists('nope')} AND (${exists('n')} OR ${exists('s')})`,
    expected: false,
  },
  {
    behaviour: 'accepts one pair of parentheses around everything',
    expression: `(${exists('n')})`,
    expected: true,
  },
  {
    behaviour: 'reads keywords in any case',
    expression: `${exists('n')} and ${exists('s')}`,
    expected: true,
  },
];

interface ErrorCase {
  readonly behaviour: string;
  readonly expression: string;
  readonly values?: Record<string, unknown>;
  readonly names?: Record<string, string>;
  readonly message: RegExp;
}

/** Condition expressions DynamoDB refuses, with the message both emulators give. */
export const CONDITION_ERRORS: readonly ErrorCase[] = [
  {
    behaviour: 'an undefined :value',
    expression: 'n = :x',
    message:
      /Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x$/,
  },
  {
    behaviour: 'an undefined #name',
    expression: 'attribute_exists(#x)',
    message:
      /Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x$/,
  },
  {
    behaviour: 'an unused :value',
    expression: 'attribute_not_exists(pk)',
    values: { ':x': 1 },
    message: /^Value provided in ExpressionAttributeValues unused in expressions: keys: \{:x\}$/,
  },
  {
    behaviour: 'an unused #name',
    expression: 'attribute_not_exists(pk)',
    names: { '#x': 'x' },
    message: /^Value provided in ExpressionAttributeNames unused in expressions: keys: \{#x\}$/,
  },
  {
    behaviour: 'empty ExpressionAttributeValues',
    expression: 'attribute_not_exists(pk)',
    values: {},
    message: /ExpressionAttributeValues must not be empty$/,
  },
  {
    behaviour: 'a syntax error at the end',
    expression: 'attribute_not_exists(pk) OR',
    message: /^Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "OR"$/,
  },
  {
    behaviour: 'a syntax error inside',
    expression: 'n = = :v',
    values: { ':v': 1 },
    message: /^Invalid ConditionExpression: Syntax error; token: "=", near: "= = :v"$/,
  },
  {
    behaviour: 'redundant parentheses',
    expression: `((${exists('n')}))`,
    message: /^Invalid ConditionExpression: The expression has redundant parentheses;$/,
  },
  {
    behaviour: 'an empty expression',
    expression: '',
    message: /Invalid ConditionExpression: The expression can not be empty;$/,
  },
  {
    behaviour: 'BETWEEN bounds in the wrong order',
    expression: 'n BETWEEN :a AND :b',
    values: { ':a': 11, ':b': 1 },
    message:
      /^Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound/,
  },
  {
    behaviour: 'a number as the prefix of begins_with',
    expression: 'begins_with(s, :v)',
    values: { ':v': 1 },
    message:
      /^Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N$/,
  },
];

interface UpdateCase {
  readonly behaviour: string;
  readonly update: string;
  readonly values?: Record<string, unknown>;
  /** The attributes after the update, the key left out; `undefined` start = absent item. */
  readonly after: Record<string, unknown>;
  readonly absent?: true;
}

/** The item every update case starts from (unless `absent`). */
export const UPDATE_ITEM = {
  n: 10,
  f: 0.1,
  s: 'hello',
  l: ['x', 2, 'y'],
  m: { k: 'v' },
  ss: new Set(['a', 'b']),
  big: NumberValue.from('99999999999999999999999999999999999999'),
};

/** {@link UPDATE_ITEM} as a document client reads it back (a 38-digit number as a bigint). */
const READ = { ...UPDATE_ITEM, big: 10n ** 38n - 1n };
const { ss: _ss, ...withoutSet } = READ;

/** Updates and what they leave. */
export const UPDATE_CASES: readonly UpdateCase[] = [
  {
    behaviour: 'creates an absent item with its key',
    update: 'SET q = :v',
    values: { ':v': 1 },
    absent: true,
    after: { q: 1 },
  },
  {
    behaviour: 'ADD adds to a number',
    update: 'ADD n :v',
    values: { ':v': 5 },
    after: { ...READ, n: 15 },
  },
  {
    behaviour: 'ADD sets an absent number',
    update: 'ADD x :v',
    values: { ':v': 5 },
    after: { ...READ, x: 5 },
  },
  {
    behaviour: 'ADD adds to a number exactly at 38 digits',
    update: 'ADD big :v',
    values: { ':v': 1 },
    after: { ...READ, big: 10n ** 38n },
  },
  {
    behaviour: 'ADD adds members to a set',
    update: 'ADD ss :v',
    values: { ':v': new Set(['b', 'c']) },
    after: { ...READ, ss: new Set(['a', 'b', 'c']) },
  },
  {
    behaviour: 'ADD creates an absent set',
    update: 'ADD zz :v',
    values: { ':v': new Set(['c']) },
    after: { ...READ, zz: new Set(['c']) },
  },
  {
    behaviour: 'DELETE removes members from a set',
    update: 'DELETE ss :v',
    values: { ':v': new Set(['a', 'q']) },
    after: { ...READ, ss: new Set(['b']) },
  },
  {
    behaviour: 'DELETE of every member removes the set',
    update: 'DELETE ss :v',
    values: { ':v': new Set(['a', 'b']) },
    after: withoutSet,
  },
  {
    behaviour: 'DELETE from an absent set changes nothing',
    update: 'DELETE zz :v',
    values: { ':v': new Set(['a']) },
    after: READ,
  },
  {
    behaviour: 'SET a = a + :v and a - :v in exact decimals',
    update: 'SET f = f + :v, n = n - :w',
    values: { ':v': 0.2, ':w': 10.5 },
    after: { ...READ, f: 0.3, n: -0.5 },
  },
  {
    behaviour: 'SET adds two values',
    update: 'SET q = :a + :b',
    values: { ':a': 1, ':b': 2 },
    after: { ...READ, q: 3 },
  },
  {
    behaviour: 'if_not_exists keeps a value and fills an absent one',
    update: 'SET n = if_not_exists(n, :v), q = if_not_exists(q, :v)',
    values: { ':v': 1 },
    after: { ...READ, q: 1 },
  },
  {
    behaviour: 'if_not_exists starts a counter',
    update: 'SET q = if_not_exists(q, :zero) + :v',
    values: { ':zero': 0, ':v': 2 },
    after: { ...READ, q: 2 },
  },
  {
    behaviour: 'list_append appends',
    update: 'SET l = list_append(l, :v)',
    values: { ':v': ['z'] },
    after: { ...READ, l: ['x', 2, 'y', 'z'] },
  },
  {
    behaviour: 'list_append prepends',
    update: 'SET l = list_append(:v, l)',
    values: { ':v': ['z'] },
    after: { ...READ, l: ['z', 'x', 2, 'y'] },
  },
  {
    behaviour: 'list_append starts an absent list with if_not_exists',
    update: 'SET q = list_append(if_not_exists(q, :e), :v)',
    values: { ':e': [], ':v': ['z'] },
    after: { ...READ, q: ['z'] },
  },
  {
    behaviour: 'SET writes a map key',
    update: 'SET m.k2 = :v',
    values: { ':v': 'w' },
    after: { ...READ, m: { k: 'v', k2: 'w' } },
  },
  {
    behaviour: 'SET writes a list element',
    update: 'SET l[1] = :v',
    values: { ':v': 'w' },
    after: { ...READ, l: ['x', 'w', 'y'] },
  },
  {
    behaviour: 'SET past the end of a list appends',
    update: 'SET l[10] = :v',
    values: { ':v': 'w' },
    after: { ...READ, l: ['x', 2, 'y', 'w'] },
  },
  {
    behaviour: 'REMOVE removes attributes, map keys and a list element',
    update: 'REMOVE s, nope, m.k, l[0]',
    after: { ...READ, s: undefined, m: {}, l: [2, 'y'] },
  },
  {
    behaviour: 'reads every SET value from the item as it was',
    update: 'SET n = :v, q = n',
    values: { ':v': 1 },
    after: { ...READ, n: 1, q: 10 },
  },
  {
    behaviour: 'applies clauses written in any order',
    update: 'REMOVE s ADD n :one SET q = :one DELETE ss :ss',
    values: { ':one': 1, ':ss': new Set(['a']) },
    after: { ...READ, s: undefined, n: 11, q: 1, ss: new Set(['b']) },
  },
];

interface UpdateErrorCase {
  readonly behaviour: string;
  readonly update: string;
  readonly values?: Record<string, unknown>;
  readonly names?: Record<string, string>;
  readonly message: RegExp;
}

/** Updates DynamoDB refuses on {@link UPDATE_ITEM}, with the message both emulators give. */
export const UPDATE_ERRORS: readonly UpdateErrorCase[] = [
  {
    behaviour: 'arithmetic on an attribute the item lacks',
    update: 'SET q = q + :v',
    values: { ':v': 1 },
    message: /^The provided expression refers to an attribute that does not exist in the item$/,
  },
  {
    behaviour: 'list_append of a list the item lacks',
    update: 'SET q = list_append(q, :v)',
    values: { ':v': ['z'] },
    message: /^The provided expression refers to an attribute that does not exist in the item$/,
  },
  {
    behaviour: 'ADD to a string attribute',
    update: 'ADD s :v',
    values: { ':v': 1 },
    message: /^An operand in the update expression has an incorrect data type$/,
  },
  {
    behaviour: 'ADD of a set of another type',
    update: 'ADD ss :v',
    values: { ':v': new Set([1]) },
    message: /^An operand in the update expression has an incorrect data type$/,
  },
  {
    behaviour: 'ADD of a string value',
    update: 'ADD n :v',
    values: { ':v': '1' },
    message:
      /^Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND$/,
  },
  {
    behaviour: 'a SET of the key attribute',
    update: 'SET pk = :v',
    values: { ':v': 'x' },
    message:
      /^One or more parameter values were invalid: Cannot update attribute pk\. This attribute is part of the key$/,
  },
  {
    behaviour: 'a REMOVE of the key attribute through a #name',
    update: 'REMOVE #p',
    names: { '#p': 'pk' },
    message:
      /^One or more parameter values were invalid: Cannot update attribute pk\. This attribute is part of the key$/,
  },
  {
    behaviour: 'a reserved word as an attribute name',
    update: 'SET status = :v',
    values: { ':v': 'x' },
    message:
      /^Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status$/,
  },
  {
    behaviour: 'an unknown section',
    update: 'FOO a',
    message: /^Invalid UpdateExpression: Syntax error; token: "FOO", near: "FOO a"$/,
  },
  {
    behaviour: 'an empty update',
    update: '',
    message: /^Invalid UpdateExpression: The expression can not be empty;$/,
  },
  {
    behaviour: 'a #name used by neither expression',
    update: 'SET #a = :v',
    values: { ':v': 'w' },
    names: { '#a': 'q', '#b': 'z' },
    message: /^Value provided in ExpressionAttributeNames unused in expressions: keys: \{#b\}$/,
  },
];

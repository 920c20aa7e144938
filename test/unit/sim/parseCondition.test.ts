import { describe, expect, it } from 'vitest';
import { parseCondition } from '../../../src/testing/dynamo/parseCondition.js';

const refused = (expression: string) => {
  try {
    parseCondition(expression);
  } catch (error) {
    expect((error as Error).name).toBe('ValidationException');
    return (error as Error).message;
  }
  throw new Error(`parsed: ${expression}`);
};

describe('parseCondition', () => {
  it('parses the inbox condition and lists its placeholders', () => {
    const parsed = parseCondition('attribute_not_exists(#pk) OR #expiresAt < :nowEpochSeconds');
    expect(parsed.root).toEqual({
      kind: 'or',
      left: {
        kind: 'function',
        name: 'attribute_not_exists',
        args: [{ kind: 'path', path: ['#pk'] }],
      },
      right: {
        kind: 'compare',
        comparator: '<',
        left: { kind: 'path', path: ['#expiresAt'] },
        right: { kind: 'value', ref: ':nowEpochSeconds' },
      },
    });
    expect([...parsed.nameRefs]).toEqual(['#pk', '#expiresAt']);
    expect([...parsed.valueRefs]).toEqual([':nowEpochSeconds']);
  });

  it('parses each text once: the same text gives the same parsed object', () => {
    expect(parseCondition('a = :v')).toBe(parseCondition('a = :v'));
  });

  it('refuses a cached failure again with the same message', () => {
    expect(refused('a = = :v')).toBe(refused('a = = :v'));
  });

  it('reads nested paths, list indexes and #names', () => {
    const { root } = parseCondition('a.#b[2][0].c = :v');
    expect(root).toMatchObject({ left: { kind: 'path', path: ['a', '#b', 2, 0, 'c'] } });
  });

  it('binds NOT tighter than AND, and AND tighter than OR', () => {
    const { root } = parseCondition('NOT a = :a AND b = :b OR c = :c');
    expect(root).toMatchObject({ kind: 'or', left: { kind: 'and', left: { kind: 'not' } } });
  });

  it('parses BETWEEN, IN and size()', () => {
    expect(parseCondition('size(a) BETWEEN :x AND :y').root).toMatchObject({
      kind: 'between',
      operand: { kind: 'size', operand: { kind: 'path', path: ['a'] } },
    });
    expect(parseCondition('a IN (:x, :y, :z)').root).toMatchObject({
      kind: 'in',
      candidates: [{}, {}, {}],
    });
  });

  it.each([
    [
      'a syntax error at the first token',
      'OR a',
      'Invalid ConditionExpression: Syntax error; token: "OR", near: "OR a"',
    ],
    [
      'a syntax error after a complete condition',
      'a = :v)',
      'Invalid ConditionExpression: Syntax error; token: ")", near: ":v)"',
    ],
    [
      'a character outside the grammar',
      'a = $v',
      'Invalid ConditionExpression: Syntax error; token: "$", near: "= $"',
    ],
    [
      'an unclosed parenthesis',
      '(a = :v',
      'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"',
    ],
    [
      'an end reached too soon, quoting the trailing space (as DynamoDB Local and MiniStack do)',
      '(a = :v  ',
      'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v  "',
    ],
    [
      'an expression of spaces',
      '   ',
      'Invalid ConditionExpression: The expression can not be empty;',
    ],
    [
      'more than 100 IN operands',
      `a IN (${Array.from({ length: 101 }, (_, i) => `:v${i}`).join(', ')})`,
      'Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101',
    ],
    [
      'an update function',
      'if_not_exists(a, :v) = :v',
      'Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists',
    ],
    [
      'a comparison of a boolean function',
      'attribute_exists(a) = :v',
      'Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists',
    ],
    [
      'a boolean function as an operand',
      'a = contains(b, :v)',
      'Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: contains',
    ],
    [
      'size() alone',
      'size(a)',
      'Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size',
    ],
    [
      'a value where a path is needed',
      'attribute_exists(:v)',
      'Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists',
    ],
    [
      'a function name in capitals (names are case-sensitive)',
      'ATTRIBUTE_EXISTS(a)',
      'Invalid ConditionExpression: Invalid function name; function: ATTRIBUTE_EXISTS',
    ],
    [
      'an unknown function',
      'foo(a)',
      'Invalid ConditionExpression: Invalid function name; function: foo',
    ],
    [
      'a function with too few operands',
      'begins_with(a)',
      'Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1',
    ],
    [
      'size() of two operands',
      'size(a, b) = :v',
      'Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: size, number of operands: 2',
    ],
    [
      'a path compared with itself',
      'a.b = a.b',
      'Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a, b]',
    ],
    [
      'a reserved word',
      'status = :v',
      'Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status',
    ],
    [
      'a reserved word in a nested path',
      'a.name = :v',
      'Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name',
    ],
    [
      'a grammar keyword as a name',
      'attribute_exists(remove)',
      'Invalid ConditionExpression: Syntax error; token: "remove", near: "(remove)"',
    ],
    [
      'a list index that is not a number',
      'a[b] = :v',
      'Invalid ConditionExpression: Syntax error; token: "b", near: "[b]"',
    ],
  ])('refuses %s', (_case, expression, message) => {
    expect(refused(expression)).toBe(message);
  });

  it('refuses nested redundant parentheses but not parentheses around a group', () => {
    expect(refused('((a = :v))')).toMatch(/redundant parentheses/);
    expect(() => parseCondition('((a = :v) AND (b = :w))')).not.toThrow();
    expect(() => parseCondition('NOT (a = :v)')).not.toThrow();
  });
});

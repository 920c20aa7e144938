import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { checkConditionOperands } from '../../../src/testing/dynamo/checkConditionOperands.js';
import type { Item } from '../../../src/testing/dynamo/compareValues.js';
import { evaluateCondition } from '../../../src/testing/dynamo/evaluateCondition.js';
import { normalizeItem } from '../../../src/testing/dynamo/normalizeItem.js';
import { parseCondition } from '../../../src/testing/dynamo/parseCondition.js';

const ITEM: Item = normalizeItem({
  n: { N: '10' },
  s: { S: 'hello' },
  b: { B: new Uint8Array([1, 2]) },
  ns: { NS: ['1', '2'] },
  bs: { BS: [new Uint8Array([7])] },
  l: { L: [{ S: 'x' }, { M: { k: { S: 'v' } } }] },
  m: { M: { 'a.b': { S: 'dotted' } } },
});

function holds(
  expression: string,
  values: Record<string, AttributeValue> = {},
  names?: Record<string, string>,
  item: Item | undefined = ITEM,
): boolean {
  const normalized = normalizeItem(values);
  const { root } = parseCondition(expression);
  checkConditionOperands(root, normalized);
  return evaluateCondition(root, item, { names, values: normalized });
}

describe('evaluateCondition', () => {
  it.each([
    ['a number set member written 2.0', 'contains(ns, :v)', { ':v': { N: '2.0' } }, true],
    ['a binary set member', 'contains(bs, :v)', { ':v': { B: new Uint8Array([7]) } }, true],
    ['a list element that is a map', 'contains(l, :v)', { ':v': { M: { k: { S: 'v' } } } }, true],
    [
      'a string prefix of a number (false, not an error)',
      'begins_with(n, :v)',
      { ':v': { S: '1' } },
      false,
    ],
    [
      'a binary prefix longer than the value',
      'begins_with(b, :v)',
      { ':v': { B: new Uint8Array([1, 2, 3]) } },
      false,
    ],
    ['a value that begins with a path', 'begins_with(:v, s)', { ':v': { S: 'hello world' } }, true],
    ['size() of a value', 'size(:v) = :n', { ':v': { S: 'abc' }, ':n': { N: '3' } }, true],
    ['a path through a list into a map', 'l[1].k = :v', { ':v': { S: 'v' } }, true],
    ['a map key with a dot, through #names', 'm.#k = :v', { ':v': { S: 'dotted' } }, true],
    [
      'attribute_type of an absent attribute',
      'attribute_type(nope, :t)',
      { ':t': { S: 'S' } },
      false,
    ],
    ['<= at equality', 'n <= :v', { ':v': { N: '10.0' } }, true],
    ['>= below', 'n >= :v', { ':v': { N: '11' } }, false],
  ])('evaluates %s', (_case, expression, values, expected) => {
    expect(holds(expression, values, { '#k': 'a.b' })).toBe(expected);
  });

  it('evaluates an absent item: attribute_not_exists holds, comparisons do not', () => {
    expect(holds('attribute_not_exists(pk)', {}, undefined, undefined)).toBe(true);
    expect(holds('n < :v', { ':v': { N: '1' } }, undefined, undefined)).toBe(false);
  });
});

describe('checkConditionOperands', () => {
  it.each([
    [
      'a boolean in <',
      'n < :v',
      { ':v': { BOOL: true } },
      'Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL',
    ],
    [
      'a list in BETWEEN',
      'n BETWEEN :a AND :b',
      { ':a': { L: [] }, ':b': { N: '1' } },
      'Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L',
    ],
    [
      'BETWEEN bounds of two types',
      'n BETWEEN :a AND :b',
      { ':a': { N: '1' }, ':b': { S: '9' } },
      'Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:9}',
    ],
    [
      'BETWEEN bounds in the wrong order',
      'n BETWEEN :a AND :b',
      { ':a': { N: '11' }, ':b': { N: '1' } },
      'Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:11}, upper bound operand: AttributeValue: {N:1}',
    ],
    [
      'a number as an attribute type',
      'attribute_type(s, :t)',
      { ':t': { N: '1' } },
      'Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N',
    ],
    [
      'an unknown attribute type',
      'attribute_type(s, :t)',
      { ':t': { S: 'STRING' } },
      'Invalid ConditionExpression: Invalid attribute type name found; type: STRING, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}',
    ],
    [
      'a number prefix, under NOT and OR',
      'NOT (a = :a OR begins_with(s, :v))',
      { ':a': { S: 'x' }, ':v': { N: '1' } },
      'Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N',
    ],
  ])('refuses %s before reading the item', (_case, expression, values, message) => {
    expect(() => holds(expression, values)).toThrow(message);
  });

  it('lets = and <> compare values of any type', () => {
    expect(holds('n = :v AND n <> :w', { ':v': { N: '10' }, ':w': { BOOL: true } })).toBe(true);
  });
});

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseUpdate } from '../../../src/testing/dynamo/parseUpdate.js';
import { N, S, simWithTables, thrown } from './simFixture.js';

const ITEM = {
  pk: S('a'),
  n: N('10'),
  s: S('hello'),
  l: { L: [S('x'), S('y'), S('z')] },
  m: { M: { k: S('v') } },
  ns: { NS: ['1', '2'] },
  big: N('99999999999999999999999999999999999999'),
};

function updated(
  expression: string,
  values?: Record<string, AttributeValue>,
  names?: Record<string, string>,
) {
  const dynamo = simWithTables();
  dynamo.putItem({ TableName: 't', Item: ITEM });
  const update = () =>
    dynamo.updateItem({
      TableName: 't',
      Key: { pk: S('a') },
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
      ExpressionAttributeNames: names,
      ReturnValues: 'ALL_NEW',
    }).Attributes;
  return { dynamo, update };
}

describe('parseUpdate', () => {
  it('parses sections in any order, each action in order written', () => {
    const { actions } = parseUpdate('REMOVE a ADD b :v SET c = :w DELETE d :x');
    expect(actions.map((action) => action.kind)).toEqual(['REMOVE', 'ADD', 'SET', 'DELETE']);
  });

  it('parses each text once', () => {
    expect(parseUpdate('SET a = :v')).toBe(parseUpdate('SET a = :v'));
  });

  it.each([
    [
      'a section used twice',
      'SET a = :v SET b = :v',
      'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;',
    ],
    [
      'a trailing comma',
      'SET a = :v,',
      'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","',
    ],
    [
      'two operators in one value',
      'SET a = :v + :v + :v',
      'Invalid UpdateExpression: Syntax error; token: "+", near: ":v + :v"',
    ],
    [
      'a section without actions',
      'SET',
      'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"',
    ],
    [
      'a function as an ADD operand',
      'ADD q if_not_exists(n, :v)',
      'Invalid UpdateExpression: Syntax error; token: "if_not_exists", near: "q if_not_exists("',
    ],
    [
      'a grammar keyword as a name',
      'SET add = :v',
      'Invalid UpdateExpression: Syntax error; token: "add", near: "SET add ="',
    ],
    [
      'a condition function',
      'SET a = size(b)',
      'Invalid UpdateExpression: The function is not allowed in an update expression; function: size',
    ],
    [
      'an unknown function',
      'SET a = foo(b)',
      'Invalid UpdateExpression: Invalid function name; function: foo',
    ],
    [
      'if_not_exists of a value',
      'SET a = if_not_exists(:v, :v)',
      'Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists',
    ],
    [
      'list_append of one operand',
      'SET a = list_append(b)',
      'Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1',
    ],
  ])('refuses %s', (_case, expression, message) => {
    expect(thrown(() => parseUpdate(expression))).toMatchObject({
      name: 'ValidationException',
      message,
    });
  });
});

describe('applying an update', () => {
  it('removes list elements by their indexes in the original list', () => {
    expect(updated('REMOVE l[0], l[2]').update()?.l).toEqual({ L: [S('y')] });
  });

  it('removes a list element past the end as nothing', () => {
    expect(updated('REMOVE l[9]').update()?.l).toEqual(ITEM.l);
  });

  it('adds numbers to a number set by value (2.0 is 2) and deletes them by value', () => {
    expect(updated('ADD ns :v', { ':v': { NS: ['2.0', '3'] } }).update()?.ns).toEqual({
      NS: ['1', '2', '3'],
    });
    expect(updated('DELETE ns :v', { ':v': { NS: ['1.0'] } }).update()?.ns).toEqual({ NS: ['2'] });
  });

  it('adds binaries to a binary set by bytes', () => {
    const { dynamo } = updated('REMOVE s');
    const update = (expression: string, bytes: number) =>
      dynamo.updateItem({
        TableName: 't',
        Key: { pk: S('a') },
        UpdateExpression: expression,
        ExpressionAttributeValues: { ':v': { BS: [new Uint8Array([bytes])] } },
        ReturnValues: 'UPDATED_NEW',
      }).Attributes;
    update('ADD bs :v', 1);
    expect(update('ADD bs :v', 1)).toEqual({ bs: { BS: [new Uint8Array([1])] } });
    expect(update('DELETE bs :v', 1)).toBeUndefined();
  });

  it.each([
    [
      'SET through a missing map',
      'SET q.k = :v',
      { ':v': S('w') },
      'The document path provided in the update expression is invalid for update',
    ],
    [
      'SET through a string',
      'SET s.k = :v',
      { ':v': S('w') },
      'The document path provided in the update expression is invalid for update',
    ],
    [
      'SET a list index of a string',
      'SET s[0] = :v',
      { ':v': S('w') },
      'The document path provided in the update expression is invalid for update',
    ],
    [
      'REMOVE through a missing map',
      'REMOVE q.k',
      undefined,
      'The document path provided in the update expression is invalid for update',
    ],
    [
      'ADD through a missing map',
      'ADD q.k :v',
      { ':v': N('1') },
      'The document path provided in the update expression is invalid for update',
    ],
    [
      'arithmetic on a string attribute',
      'SET q = s + :v',
      { ':v': N('1') },
      'An operand in the update expression has an incorrect data type',
    ],
    [
      'list_append of a string attribute',
      'SET q = list_append(s, :v)',
      { ':v': { L: [] } },
      'An operand in the update expression has an incorrect data type',
    ],
    [
      'DELETE from a set of another type',
      'DELETE ns :v',
      { ':v': { SS: ['a'] } },
      'An operand in the update expression has an incorrect data type',
    ],
    [
      'a sum of more than 38 digits',
      'ADD big :v',
      { ':v': N('0.1') },
      'Attempting to store more than 38 significant digits in a Number',
    ],
    [
      'a string added with +',
      'SET q = :a + :b',
      { ':a': S('1'), ':b': S('2') },
      'Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S',
    ],
    [
      'a string appended with list_append',
      'SET l = list_append(l, :v)',
      { ':v': S('x') },
      'Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S',
    ],
    [
      'a string in DELETE',
      'DELETE ns :v',
      { ':v': S('a') },
      'Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND',
    ],
    [
      'a SET and a REMOVE of one path',
      'SET a = :v REMOVE a',
      { ':v': S('w') },
      'Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]',
    ],
    [
      'one list element written twice',
      'SET l[0] = :v, #l[0] = :v',
      { ':v': S('w') },
      'Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, [0]]',
    ],
    [
      'a path used as a map and as a list',
      'SET a.b = :v, a[0] = :v',
      { ':v': S('w') },
      'Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]',
    ],
  ])('refuses %s, changing nothing', (_case, expression, values, message) => {
    const names = expression.includes('#l') ? { '#l': 'l' } : undefined;
    const { dynamo, update } = updated(expression, values, names);
    expect(thrown(update)).toMatchObject({ name: 'ValidationException', message });
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('a') } }).Item).toEqual(ITEM);
  });

  it('returns the nested part of an updated path with UPDATED_NEW (as MiniStack does)', () => {
    const dynamo = simWithTables();
    dynamo.putItem({
      TableName: 't',
      Item: { pk: S('a'), m: { M: { k: S('v'), other: S('o') } } },
    });
    const { Attributes } = dynamo.updateItem({
      TableName: 't',
      Key: { pk: S('a') },
      UpdateExpression: 'SET m.k = :v, m.j = :v',
      ExpressionAttributeValues: { ':v': S('w') },
      ReturnValues: 'UPDATED_NEW',
    });
    expect(Attributes).toEqual({ m: { M: { k: S('w'), j: S('w') } } });
  });

  it('creates an absent item with its key alone when the update has no expression', () => {
    const dynamo = simWithTables();
    dynamo.updateItem({ TableName: 't', Key: { pk: S('new') } });
    expect(dynamo.getItem({ TableName: 't', Key: { pk: S('new') } }).Item).toEqual({
      pk: S('new'),
    });
  });
});

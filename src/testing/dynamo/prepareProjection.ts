import { checkDistinctPaths, type ResolvedPath, resolvePath } from './attributePath.js';
import { checkPlaceholders } from './checkPlaceholders.js';
import type { Item } from './compareValues.js';
import { parseProjection, projectItem } from './parseProjection.js';
import { checkNoPathIntoKey } from './prepareRead.js';
import type { SimTable } from './SimTable.js';

/**
 * The projection parameters of a `GetItem`, or of one table's request in a `BatchGetItem`.
 *
 * @example
 * ```ts
 * const input: ProjectionInput = { ProjectionExpression: '#s, total', ExpressionAttributeNames: { '#s': 'status' } };
 * ```
 */
export interface ProjectionInput {
  readonly ProjectionExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Record<string, string> | undefined;
}

/**
 * The projection of a `GetItem` or of a `BatchGetItem` table's keys, checked as DynamoDB checks
 * it, in DynamoDB Local's words: parsed, every name it uses defined and every name defined used
 * (and none given without it), no two paths overlapping, no path into a key attribute. Returns
 * its paths, placeholders replaced, or `undefined` for whole items.
 *
 * @example
 * ```ts
 * const paths = prepareProjection({ ProjectionExpression: 'n, m.x' }, table); // [['n'], ['m', 'x']]
 * ```
 */
export function prepareProjection(
  input: ProjectionInput,
  table: SimTable,
): readonly ResolvedPath[] | undefined {
  const names = input.ExpressionAttributeNames;
  const projection =
    input.ProjectionExpression === undefined
      ? undefined
      : parseProjection(input.ProjectionExpression);
  const used = projection ? [{ kind: 'ProjectionExpression' as const, ...projection }] : [];
  checkPlaceholders(used, names, undefined);
  if (projection === undefined) return undefined;
  const paths = projection.paths.map((path) => resolvePath(path, names));
  checkDistinctPaths(paths, 'ProjectionExpression');
  checkNoPathIntoKey(paths, table);
  return paths;
}

/**
 * An item as a read answers it: projected when there are paths (`{}` when it has none of
 * them), whole otherwise.
 *
 * @example
 * ```ts
 * projected({ pk: { S: 'a' }, n: { N: '1' } }, [['n']]) // => { n: { N: '1' } }
 * ```
 */
export function projected(item: Item, paths: readonly ResolvedPath[] | undefined): Item {
  return paths === undefined ? item : projectItem(item, paths);
}

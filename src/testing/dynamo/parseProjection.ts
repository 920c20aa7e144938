import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type PathSpec, parsePath, type ResolvedPath } from './attributePath.js';
import type { Item } from './compareValues.js';
import { TokenStream } from './TokenStream.js';

/**
 * A parsed `ProjectionExpression`: its document paths as written, with the `#name`
 * placeholders they use (a projection uses no `:value`).
 *
 * @example
 * ```ts
 * const { paths }: ParsedProjection = parseProjection('sk, #m.x, l[1]'); // [['sk'], ['#m', 'x'], ['l', 1]]
 * ```
 */
export interface ParsedProjection {
  readonly paths: readonly PathSpec[];
  readonly nameRefs: ReadonlySet<string>;
  readonly valueRefs: ReadonlySet<string>;
}

/**
 * Parses a `ProjectionExpression`: document paths separated by commas, with DynamoDB's
 * messages (`Invalid ProjectionExpression: Syntax error; …`, reserved words). A function call
 * such as `size(a)` is a syntax error there, as in DynamoDB.
 *
 * @example
 * ```ts
 * parseProjection('a, b.c').paths // => [['a'], ['b', 'c']]
 * ```
 */
export function parseProjection(text: string): ParsedProjection {
  const stream = new TokenStream(text, 'ProjectionExpression');
  const paths = [parsePath(stream)];
  while (stream.acceptSymbol(',')) paths.push(parsePath(stream));
  if (stream.peek().type !== 'eof') stream.fail();
  return { paths, nameRefs: stream.nameRefs, valueRefs: stream.valueRefs };
}

/**
 * The parts of an item that the paths name, nested as in the item: a path that is absent (or
 * steps through a value of another type) adds nothing, list elements keep their order and
 * close up (`l[3], l[1]` gives a list of two), and an item none of whose paths is present is
 * `{}`. The paths must not overlap (see `checkDistinctPaths`).
 *
 * @example
 * ```ts
 * projectItem({ m: { M: { x: { S: 'a' }, y: { S: 'b' } } } }, [['m', 'x']]) // => { m: { M: { x: { S: 'a' } } } }
 * ```
 */
export function projectItem(item: Item, paths: readonly ResolvedPath[]): Item {
  return projectMap(item, paths) ?? {};
}

/** The projection of a map's entries; `undefined` when no path is present. */
function projectMap(map: Item, paths: readonly ResolvedPath[]): Item | undefined {
  const projected: Item = {};
  for (const [name, rests] of groupByFirst(paths)) {
    if (typeof name !== 'string' || !Object.hasOwn(map, name)) continue;
    const value = projectValue(map[name] as AttributeValue, rests);
    if (value !== undefined) projected[name] = value;
  }
  return Object.keys(projected).length === 0 ? undefined : projected;
}

/** The projection of a list's elements, in index order; `undefined` when none is present. */
function projectList(
  list: readonly AttributeValue[],
  paths: readonly ResolvedPath[],
): AttributeValue[] | undefined {
  const groups = [...groupByFirst(paths)].sort(([a], [b]) => Number(a) - Number(b));
  const projected: AttributeValue[] = [];
  for (const [index, rests] of groups) {
    const element = typeof index === 'number' ? list[index] : undefined;
    const value = element && projectValue(element, rests);
    if (value !== undefined) projected.push(value);
  }
  return projected.length === 0 ? undefined : projected;
}

/** A value, whole when a path ends at it, else the projection of its inside. */
function projectValue(
  value: AttributeValue,
  rests: readonly ResolvedPath[],
): AttributeValue | undefined {
  if (rests.some((rest) => rest.length === 0)) return value;
  if (value.M !== undefined) {
    const map = projectMap(value.M, rests);
    return map && { M: map };
  }
  if (value.L !== undefined) {
    const list = projectList(value.L, rests);
    return list && { L: list };
  }
  return undefined;
}

/** The paths grouped by their first step, each with the steps after it. */
function groupByFirst(paths: readonly ResolvedPath[]): Map<string | number, ResolvedPath[]> {
  const groups = new Map<string | number, ResolvedPath[]>();
  for (const [first, ...rest] of paths) {
    if (first === undefined) continue;
    groups.set(first, [...(groups.get(first) ?? []), rest]);
  }
  return groups;
}

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './compareValues.js';
import { validationException } from './dynamoExceptions.js';
import { RuntimeValidation, RuntimeValidationError } from './RuntimeValidationError.js';
import { isReservedWord, isSyntaxKeyword } from './reservedWords.js';
import type { ExpressionKind, TokenStream } from './TokenStream.js';

/**
 * A step of a document path: an attribute or map key name, a `#name` placeholder, a list index.
 *
 * @example
 * ```ts
 * const steps: PathElement[] = ['lines', 0, '#sku'];
 * ```
 */
export type PathElement = string | number;
/**
 * A document path as written: `#name` placeholders not yet replaced. Never empty.
 *
 * @example
 * ```ts
 * const spec: PathSpec = ['#m', 'k'];
 * ```
 */
export type PathSpec = readonly PathElement[];
/**
 * A document path with every placeholder replaced by its attribute name.
 *
 * @example
 * ```ts
 * const path: ResolvedPath = resolvePath(['#m', 'k'], { '#m': 'meta' }); // ['meta', 'k']
 * ```
 */
export type ResolvedPath = readonly PathElement[];

/**
 * Reads a document path (`a`, `#a.b`, `a[0].b`) from an expression, refusing bare reserved
 * words as DynamoDB does.
 *
 * @example
 * ```ts
 * parsePath(new TokenStream('a.#b[2]', 'ConditionExpression')) // => ['a', '#b', 2]
 * ```
 */
export function parsePath(stream: TokenStream): PathSpec {
  const elements: PathElement[] = [parseName(stream)];
  for (;;) {
    if (stream.acceptSymbol('.')) {
      elements.push(parseName(stream));
    } else if (stream.acceptSymbol('[')) {
      const index = stream.peek();
      if (index.type !== 'integer') stream.fail();
      stream.next();
      elements.push(Number(index.text));
      stream.expectSymbol(']');
    } else {
      return elements;
    }
  }
}

function parseName(stream: TokenStream): string {
  const token = stream.peek();
  if (token.type === 'nameRef') {
    stream.nameRefs.add(token.text);
  } else if (token.type !== 'identifier' || isSyntaxKeyword(token.text)) {
    stream.fail();
  } else if (isReservedWord(token.text)) {
    throw stream.error(`Attribute name is a reserved keyword; reserved keyword: ${token.text}`);
  }
  stream.next();
  return token.text;
}

function isNameRef(element: PathElement): element is string {
  return typeof element === 'string' && element.startsWith('#');
}

/**
 * Replaces the `#name` placeholders of a path (all of them known to be defined).
 *
 * @example
 * ```ts
 * resolvePath(['#s', 0], { '#s': 'status' }) // => ['status', 0]
 * ```
 */
export function resolvePath(
  spec: PathSpec,
  names: Readonly<Record<string, string>> | undefined,
): ResolvedPath {
  if (!spec.some(isNameRef)) return spec;
  return spec.map((element) => (isNameRef(element) ? (names?.[element] ?? element) : element));
}

/**
 * The value at a path of an item, or `undefined` when any step is missing or of another type.
 *
 * @example
 * ```ts
 * readPath({ m: { M: { k: { S: 'v' } } } }, ['m', 'k']) // => { S: 'v' }
 * ```
 */
export function readPath(item: Item | undefined, path: ResolvedPath): AttributeValue | undefined {
  let value: AttributeValue | undefined;
  for (const [step, element] of path.entries()) {
    if (step === 0) value = item?.[element];
    else if (typeof element === 'number') value = value?.L?.[element];
    else value = value?.M?.[element];
    if (value === undefined) return undefined;
  }
  return value;
}

/**
 * A path as DynamoDB prints it in messages: `[m, k]`, `[l, [0]]`.
 *
 * @example
 * ```ts
 * formatPath(['l', 0]) // => '[l, [0]]'
 * ```
 */
export function formatPath(path: ResolvedPath): string {
  return `[${path.map((element) => (typeof element === 'number' ? `[${element}]` : element)).join(', ')}]`;
}

/**
 * How two paths of one update relate: `overlap` when one is a prefix of the other, `conflict`
 * when they use the same step once as a map key and once as a list index, else `distinct`.
 *
 * @example
 * ```ts
 * comparePaths(['a'], ['a', 'b']) // => 'overlap'
 * ```
 */
export function comparePaths(
  a: ResolvedPath,
  b: ResolvedPath,
): 'overlap' | 'conflict' | 'distinct' {
  const length = Math.min(a.length, b.length);
  for (let at = 0; at < length; at++) {
    if (a[at] === b[at]) continue;
    return typeof a[at] === typeof b[at] ? 'distinct' : 'conflict';
  }
  return 'overlap';
}

/**
 * Refuses two paths of one expression that overlap or conflict (see {@link comparePaths}), in
 * DynamoDB's words, naming the expression.
 *
 * @example
 * ```ts
 * checkDistinctPaths([['m'], ['m', 'x']], 'ProjectionExpression'); // throws: overlap
 * ```
 */
export function checkDistinctPaths(paths: readonly ResolvedPath[], kind: ExpressionKind): void {
  for (const [at, first] of paths.entries()) {
    for (const second of paths.slice(at + 1)) {
      const relation = comparePaths(first, second);
      if (relation === 'distinct') continue;
      throw validationException(
        `Invalid ${kind}: Two document paths ${relation} with each other; must remove or rewrite one of these paths; ` +
          `path one: ${formatPath(first)}, path two: ${formatPath(second)}`,
      );
    }
  }
}

const invalidPath = () => new RuntimeValidationError(RuntimeValidation.InvalidPath);

/**
 * A copy of the item with the value written at the path; a list index past the end appends.
 * Throws {@link RuntimeValidationError} when a step before the last is missing or of the
 * wrong type.
 *
 * @example
 * ```ts
 * setPath({ l: { L: [] } }, ['l', 5], { S: 'x' }) // => { l: { L: [{ S: 'x' }] } }
 * ```
 */
export function setPath(item: Item, path: ResolvedPath, value: AttributeValue): Item {
  const [name, ...rest] = path as [string, ...PathElement[]];
  return { ...item, [name]: rest.length === 0 ? value : setInside(item[name], rest, value) };
}

function setInside(
  container: AttributeValue | undefined,
  path: readonly PathElement[],
  value: AttributeValue,
): AttributeValue {
  const [element, ...rest] = path;
  const write = (current: AttributeValue | undefined) =>
    rest.length === 0 ? value : setInside(current, rest, value);
  if (typeof element === 'number') {
    const list = container?.L;
    if (list === undefined) throw invalidPath();
    const copy = [...list];
    copy[Math.min(element, copy.length)] = write(list[element]);
    return { L: copy };
  }
  const map = container?.M;
  if (map === undefined || element === undefined) throw invalidPath();
  return { M: { ...map, [element]: write(map[element]) } };
}

/**
 * A copy of the item without the value at the path; a missing last step changes nothing.
 * Throws {@link RuntimeValidationError} when a step before the last is missing or of the
 * wrong type.
 *
 * @example
 * ```ts
 * removePath({ a: { S: 'x' }, b: { S: 'y' } }, ['a']) // => { b: { S: 'y' } }
 * ```
 */
export function removePath(item: Item, path: ResolvedPath): Item {
  const [name, ...rest] = path as [string, ...PathElement[]];
  if (rest.length > 0) return { ...item, [name]: removeInside(item[name], rest) };
  const { [name]: _removed, ...others } = item;
  return others;
}

function removeInside(
  container: AttributeValue | undefined,
  path: readonly PathElement[],
): AttributeValue {
  const [element, ...rest] = path;
  if (typeof element === 'number') {
    const list = container?.L;
    if (list === undefined) throw invalidPath();
    if (element >= list.length) return { L: list };
    const copy = [...list];
    if (rest.length === 0) copy.splice(element, 1);
    else copy[element] = removeInside(list[element], rest);
    return { L: copy };
  }
  const map = container?.M;
  if (map === undefined || element === undefined) throw invalidPath();
  if (rest.length > 0) return { M: { ...map, [element]: removeInside(map[element], rest) } };
  const { [element]: _removed, ...others } = map;
  return { M: others };
}

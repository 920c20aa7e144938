import { FORMAT_STAMP, READABLE_FORMAT } from '../../../src/aws/entryWrites.js';
import type { Rewrite } from '../../../src/testing/dynamo/SimDocumentClient.js';
import type { Prng } from '../kernel/Prng.js';

type Request = Record<string, unknown>;

/**
 * The store's requests as the previous release (0.1.0) sent them: the same requests less what
 * format versions added — no `formatVersion` in an item it puts, no `#formatVersion =
 * :formatVersion` in an update, no check of the version in a condition — on the tables whose
 * items carry a version (the inbox's and the outbox's). For the containers of a world that run
 * the previous release beside the current one, as in a rolling deploy, so that their entries
 * and outbox items are of the previous format. Throws if a request still names the version
 * afterwards: the library's text changed, and this must follow it.
 *
 * @example
 * ```ts
 * new SimDocumentClient({ dynamo, transport, rewrite: asPreviousRelease(['inbox', 'outbox']) });
 * ```
 */
export function asPreviousRelease(versionedTables: readonly string[]): Rewrite {
  const versioned = new Set<unknown>(versionedTables);
  const unversioned = (write: Request): Request =>
    versioned.has(write.TableName) ? withoutVersion(write) : write;
  return (operation, input) => {
    if (operation === 'TransactWriteItems') {
      const items = input.TransactItems as Array<Record<string, Request>>;
      return {
        ...input,
        TransactItems: items.map((item) =>
          Object.fromEntries(
            Object.entries(item).map(([kind, write]) => [kind, unversioned(write)]),
          ),
        ),
      };
    }
    return operation === 'PutItem' || operation === 'UpdateItem' ? unversioned(input) : input;
  };
}

function withoutVersion(write: Request): Request {
  const { formatVersion: _, ...item } = (write.Item ?? {}) as Request;
  const rewritten: Request = {
    ...write,
    ...(write.Item === undefined ? {} : { Item: item }),
    ...without('UpdateExpression', write, `, ${FORMAT_STAMP}`),
    ...without('ConditionExpression', write, ` AND ${READABLE_FORMAT}`),
  };
  const text = `${rewritten.UpdateExpression ?? ''} ${rewritten.ConditionExpression ?? ''}`;
  if (text.includes('formatVersion') || 'formatVersion' in item) {
    throw new Error(`the previous release's request still names formatVersion: ${text}`);
  }
  return withUsedPlaceholders(rewritten, text);
}

function without(field: string, write: Request, text: string): Request {
  const expression = write[field];
  return typeof expression === 'string' ? { [field]: expression.replace(text, '') } : {};
}

/** DynamoDB refuses names and values no expression uses: the version's are dropped. */
function withUsedPlaceholders(write: Request, text: string): Request {
  const used = (placeholders: unknown) =>
    placeholders === undefined
      ? {}
      : Object.fromEntries(
          Object.entries(placeholders as Request).filter(([name]) =>
            new RegExp(`${name}\\b`).test(text),
          ),
        );
  const names = used(write.ExpressionAttributeNames);
  const values = used(write.ExpressionAttributeValues);
  const { ExpressionAttributeNames: _n, ExpressionAttributeValues: _v, ...rest } = write;
  return {
    ...rest,
    ...(Object.keys(names).length === 0 ? {} : { ExpressionAttributeNames: names }),
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
  };
}

/**
 * Which containers run the previous release: each new one with the world's share, drawn from
 * its own stream as it starts, so that the rest of the world draws as before. `actors` names
 * them, for the oracle.
 *
 * @example
 * ```ts
 * const previous = previousReleaseContainers(config.previousReleaseShare, random.derive('release'));
 * ```
 */
export function previousReleaseContainers(share: number | undefined, random: Prng) {
  const actors = new Set<string>();
  const runs = (actor: string): boolean => {
    if (share === undefined || !random.chance(share)) return false;
    actors.add(actor);
    return true;
  };
  return { actors: actors as ReadonlySet<string>, runs };
}

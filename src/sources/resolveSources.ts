import { InvalidConfigurationError } from '../errors.js';
import { MessageSource, SOURCES_WITH_UPSTREAM_ID } from './MessageSource.js';

const KNOWN_SOURCES: readonly string[] = Object.values(MessageSource);

/**
 * Validates the `sources` option: a non-empty list of {@link MessageSource} values, duplicates
 * dropped; absent means `['sqs']`, producers sending to the queue directly.
 *
 * @example
 * ```ts
 * resolveSources(['sns', 'eventbridge']); // => ['sns', 'eventbridge']
 * resolveSources(undefined); // => ['sqs']
 * ```
 */
export function resolveSources(sources: unknown): readonly MessageSource[] {
  if (sources === undefined) return [MessageSource.Sqs];
  if (
    !Array.isArray(sources) ||
    sources.length === 0 ||
    !sources.every((source) => typeof source === 'string' && KNOWN_SOURCES.includes(source))
  ) {
    throw new InvalidConfigurationError(
      'sources',
      sources,
      `a non-empty array of ${KNOWN_SOURCES.map((source) => `'${source}'`).join(', ')} (MessageSource)`,
    );
  }
  return [...new Set(sources as MessageSource[])];
}

/**
 * The declared sources whose messages carry no upstream id, so that only the `key` option
 * can key them: `sqs` and `sns-raw`.
 *
 * @example
 * ```ts
 * sourcesWithoutUpstreamId(['sns', 'sns-raw']); // => ['sns-raw']
 * ```
 */
export function sourcesWithoutUpstreamId(sources: readonly MessageSource[]): MessageSource[] {
  return sources.filter((source) => !SOURCES_WITH_UPSTREAM_ID.includes(source));
}

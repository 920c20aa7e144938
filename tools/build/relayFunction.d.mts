/** Where the relay function is built, from the package root: `dist/relay-function`. */
export declare const RELAY_FUNCTION_DIRECTORY: string;

/**
 * Bundles the outbox relay (src/relay/handler.ts, the AWS SDK included) into
 * `<root>/dist/relay-function` as `index.mjs` with its source map and third-party licenses;
 * returns that directory. `npm run build` runs it; so do the repository's synths.
 *
 * @example
 * ```ts
 * buildRelayFunction(projectRoot); // '/…/sqs-inbox/dist/relay-function'
 * ```
 */
export declare function buildRelayFunction(root: string): string;

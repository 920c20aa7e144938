import { buildRelayFunction } from '../../tools/build/relayFunction.mjs';
import { projectRoot } from '../../tools/emulator/paths.js';

/**
 * Builds the outbox relay's function (dist/relay-function) from the source under test before
 * the infra tests synthesize: the constructs deploy it as the package ships it, pre-built.
 */
export default function setup(): void {
  buildRelayFunction(projectRoot);
}

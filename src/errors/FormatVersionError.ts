import { FORMAT_VERSIONS } from '../constants/values.js';
import { InboxError } from './InboxError.js';

/**
 * An inbox entry or an outbox item of a format version newer than this release reads: a newer
 * release of sqs-inbox wrote it, and a change of version means an older reader would misread it
 * (see `FORMAT_VERSIONS`). Nothing is read into it, and nothing overwrites it. In a consumer the
 * record is retried (on its last receive it is dead-lettered with this reason); the relay
 * dead-letters the item's record whole, with its image, for `redriveOutbox` to relay once the
 * relay reads that version. The fix is the message's: upgrade sqs-inbox where it reads.
 *
 * @example
 * ```ts
 * if (error instanceof FormatVersionError) console.log(error.stored, error.version, error.newest);
 * ```
 * @public
 */
export class FormatVersionError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'FormatVersionError';
  /** What holds the version: an inbox entry, or an outbox item (the keys of `FORMAT_VERSIONS`). */
  readonly stored: 'inboxEntry' | 'outboxItem';
  /** The version the item holds. */
  readonly version: number;
  /** The newest version this release reads. */
  readonly newest: number;
  constructor(
    stored: 'inboxEntry' | 'outboxItem',
    version: number,
    where: { readonly what: string; readonly fix: string },
  ) {
    const newest = FORMAT_VERSIONS[stored];
    super(
      `${where.what} has format version ${version}, and this release of sqs-inbox reads ` +
        `versions 1 to ${newest}: a newer release wrote it. ${where.fix}`,
    );
    this.stored = stored;
    this.version = version;
    this.newest = newest;
  }
}

// The text of CHANGELOG.md, without I/O: scripts/changelog.ts runs git-cliff (cliff.toml) once
// per release range and hands its output here, with the curated notes of changelog/notes/.

/** Width the commit lines are wrapped to, as the curated prose is. */
export const CHANGELOG_WIDTH_CHARS = 100;

/** Where the Unreleased commit list stops: the commit `npm run changelog` last ran at. */
const STAMP = /^<!-- unreleased-up-to: ([0-9a-f]{40}) -->$/m;

/** One `## ` section: a release, or Unreleased. */
export interface ChangelogSection {
  /** `Unreleased` or the version, `0.1.0`. */
  readonly title: string;
  /** The last commit the section lists (a release's commit, or Unreleased's stamp). */
  readonly commit: string;
  /** The release commit's date, `YYYY-MM-DD`; none for Unreleased. */
  readonly date?: string;
  /** The section before it, for the sentence naming the range; none for the first release. */
  readonly previous?: string;
  /** changelog/notes/<title>.md, curated prose (migrations), or none. */
  readonly notes?: string;
  /** git-cliff's output for the section's range. */
  readonly commits: string;
}

/**
 * The whole CHANGELOG.md: the header, then each section (newest first, as given) with its
 * heading, the sentence naming its range, its notes and its commits wrapped.
 *
 * @example
 * ```ts
 * writeFileSync('CHANGELOG.md', renderChangelog(header, sections));
 * ```
 */
export function renderChangelog(header: string, sections: readonly ChangelogSection[]): string {
  return `${[header.trim(), ...sections.map(renderSection)].join('\n\n')}\n`;
}

function renderSection(section: ChangelogSection): string {
  const range = rangeSentence(section);
  const parts = [
    `## ${section.title}`,
    section.date === undefined ? `<!-- unreleased-up-to: ${section.commit} -->\n${range}` : range,
  ];
  if (section.notes !== undefined && section.notes.trim() !== '') parts.push(section.notes.trim());
  const commits = wrapCommitLines(section.commits.trim(), CHANGELOG_WIDTH_CHARS);
  parts.push(commits === '' ? 'No commit of a published change.' : commits);
  return parts.join('\n\n');
}

function rangeSentence(section: ChangelogSection): string {
  const short = `\`${section.commit.slice(0, 7)}\``;
  const from = section.previous === undefined ? '' : ` after ${section.previous}`;
  return section.date === undefined
    ? `The commits${from} up to ${short}; \`npm run changelog\` adds the later ones.`
    : `The commits${from} up to ${short} (${section.date}).`;
}

/** The commit the Unreleased list stops at, as a written CHANGELOG.md records it. */
export function unreleasedStamp(changelog: string): string | undefined {
  return STAMP.exec(changelog)?.[1];
}

const COMMIT_LINE = /^- (\*\*[^*]+:\*\* )?(.*) \((`[0-9a-f]{7}`)\)$/;

/**
 * git-cliff's lines `- **scope:** subject (`abc1234`)` with the subject escaped for Markdown
 * and Vue (`<`, `*`, `{{` outside code spans) and wrapped to `widthChars`, continuation lines
 * indented by two; other lines unchanged.
 *
 * @example
 * ```ts
 * wrapCommitLines('- **cdk:** a <b> c (`abc1234`)', 100); // '- **cdk:** a &lt;b> c (`abc1234`)'
 * ```
 */
export function wrapCommitLines(text: string, widthChars: number): string {
  return text
    .split('\n')
    .map((line) => {
      const match = COMMIT_LINE.exec(line);
      if (match === null) return line;
      const [, scope = '', subject = '', id = ''] = match;
      return wrapWords(`- ${scope}${escapeSubject(subject)} (${id})`, widthChars);
    })
    .join('\n');
}

/** Escapes what Markdown or VitePress's Vue would read as markup, outside code spans. */
export function escapeSubject(subject: string): string {
  const pieces = subject.split('`');
  const paired = pieces.length % 2 === 1;
  return pieces
    .map((piece, index) =>
      index % 2 === 1 && (paired || index < pieces.length - 1)
        ? piece
        : piece.replaceAll('<', '&lt;').replaceAll('*', '\\*').replaceAll('{{', '&#123;&#123;'),
    )
    .join('`');
}

/** Words that open a block when they start a line. */
const BLOCK_START = /^([-+*>]|\d+[.)]|#+)$/;

function wrapWords(line: string, widthChars: number): string {
  const lines: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    // A line starting `- `, `> `, `1. ` or `# ` would open a list, quote or heading: keep such a word on the line before.
    if (
      current !== '' &&
      current.length + 1 + word.length > widthChars &&
      !BLOCK_START.test(word)
    ) {
      lines.push(current);
      current = `  ${word}`;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  lines.push(current);
  return lines.join('\n');
}

import { describe, expect, it } from 'vitest';
import {
  escapeSubject,
  renderChangelog,
  unreleasedStamp,
  wrapCommitLines,
} from '../../../tools/release/changelogText.js';

const HEAD = 'a'.repeat(40);
const RELEASE = 'b'.repeat(40);

const sections = [
  {
    title: 'Unreleased',
    commit: HEAD,
    previous: '0.1.0',
    notes: '### Migrating\n\nText.\n',
    commits: '### Features\n\n- **cdk:** a prop (`1234567`)\n',
  },
  { title: '0.1.0', commit: RELEASE, date: '2026-11-27', commits: '' },
];

describe('the changelog text', () => {
  it('renders Unreleased with the commit its list stops at, then its notes before its commits, then each release with its range and date', () => {
    const text = renderChangelog('# Changelog\n\nIntro.\n', sections);

    expect(text).toBe(
      [
        '# Changelog\n\nIntro.',
        `## Unreleased\n\n<!-- unreleased-up-to: ${HEAD} -->\nThe commits after 0.1.0 up to \`aaaaaaa\`; \`npm run changelog\` adds the later ones.`,
        '### Migrating\n\nText.',
        '### Features\n\n- **cdk:** a prop (`1234567`)',
        '## 0.1.0\n\nThe commits up to `bbbbbbb` (2026-11-27).',
        'No commit of a published change.\n',
      ].join('\n\n'),
    );
  });

  it('reads back the commit the Unreleased list stops at, and none from a file without it', () => {
    expect(unreleasedStamp(renderChangelog('# Changelog', sections))).toBe(HEAD);
    expect(unreleasedStamp('# Changelog\n\n## Unreleased\n')).toBeUndefined();
  });

  it('escapes <, * and {{ in a subject outside its code spans, and leaves an unpaired backtick alone', () => {
    expect(escapeSubject('an #ops#op#<id> item, INBOX_RETRY_* and `a<b*{{c}}` {{ x }}')).toBe(
      'an #ops#op#&lt;id> item, INBOX_RETRY_\\* and `a<b*{{c}}` &#123;&#123; x }}',
    );
    expect(escapeSubject('a ` b <c>')).toBe('a ` b &lt;c>');
  });

  it('wraps commit lines to the width, continuation lines indented, never starting one with a block marker', () => {
    const subject = `${'word '.repeat(30)}end`;
    const wrapped = wrapCommitLines(`- **cli:** ${subject} (\`abcdef1\`)\n### Fixes`, 40).split(
      '\n',
    );

    expect(wrapped.at(-1)).toBe('### Fixes');
    expect(wrapped.slice(1, -1).every((line) => line.startsWith('  word'))).toBe(true);
    expect(wrapped.slice(0, -1).every((line) => line.length <= 40)).toBe(true);
    expect(wrapped.slice(0, -1).join(' ').replace(/ {3}/g, ' ')).toBe(
      `- **cli:** ${subject} (\`abcdef1\`)`,
    );
  });

  it('keeps a word that would open a list, quote or heading on the line before, however narrow the width', () => {
    const wrapped = wrapCommitLines(
      '- xxxxxxxx - yyyyyyyy 1. zzzzzzzz > w # v + u (`abcdef1`)',
      10,
    );

    expect(wrapped.split('\n')).toEqual([
      '- xxxxxxxx -',
      '  yyyyyyyy 1.',
      '  zzzzzzzz >',
      '  w # v +',
      '  u',
      '  (`abcdef1`)',
    ]);
  });
});

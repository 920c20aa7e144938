import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = () => readFileSync(new URL('README.md', root), 'utf8');

function block(name: string): string | undefined {
  const pattern = new RegExp(
    `<!-- ${name}:begin[^>]*-->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`,
  );
  return pattern.exec(readme())?.[1];
}

/** The targets of the README's relative links (`[text](path)` without a scheme), anchors dropped. */
function relativeLinks(text: string): string[] {
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
  return targets
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.split('#')[0] ?? target);
}

describe('README', () => {
  it.each([
    { name: 'quick-start-handler', file: 'examples/quickStart/ledger.ts' },
    { name: 'quick-start-app', file: 'examples/quickStart/app.ts' },
  ])('shows exactly the $name that the typecheck compiles ($file)', ({ name, file }) => {
    expect(block(name)).toBe(readFileSync(new URL(file, root), 'utf8'));
  });

  it('stays a front door of at most 300 lines', () => {
    expect(readme().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links only to files that exist in the repository', () => {
    const links = relativeLinks(readme());
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter((link) => !existsSync(new URL(link, root)))).toEqual([]);
  });

  it.each(['CONTRIBUTING.md', 'SECURITY.md'])(
    '%s, which the site does not build, links only to files that exist either',
    (page) => {
      const links = relativeLinks(readFileSync(new URL(page, root), 'utf8'));
      expect(links.filter((link) => !existsSync(new URL(link, root)))).toEqual([]);
    },
  );

  it('says plainly that there is no registry release, and installs from a tarball or git', () => {
    const install = readme().split('## Install')[1]?.split('\n## ')[0] ?? '';
    expect(install).toContain('There is no npm release yet');
    expect(install).toContain('npm pack');
    expect(install).toContain('npm install git+https://');
  });

  it('names the tier commands that .ci/run runs, and CI runs both', () => {
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    expect(readme()).toContain('npm ci\n');
    for (const command of ['npm test', 'npm run test:deep']) {
      expect(readme()).toContain(`\`${command}\``);
      expect(ci).toMatch(new RegExp(`^tier '[^']+' ${command}$`, 'm'));
    }
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = () => readFileSync(new URL('README.md', root), 'utf8');

function block(name: string): string | undefined {
  const pattern = new RegExp(
    `<!-- ${name}:begin[^>]*-->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`,
  );
  return pattern.exec(readme())?.[1];
}

describe('README', () => {
  it.each([
    { name: 'quick-start-handler', file: 'examples/quickStart/ledger.ts' },
    { name: 'quick-start-app', file: 'examples/quickStart/app.ts' },
    { name: 'sources-app', file: 'examples/sources/app.ts' },
    { name: 'sources-handler', file: 'examples/sources/reservations.ts' },
    { name: 'steps-handler', file: 'examples/steps/checkout.ts' },
    { name: 'outbox-app', file: 'examples/outbox/app.ts' },
    { name: 'outbox-publisher', file: 'examples/outbox/ledgerOutbox.ts' },
    { name: 'outbox-consumer', file: 'examples/outbox/notifier.ts' },
    { name: 'testing-vitest', file: 'examples/testing/ledger.test.ts' },
    { name: 'testing-jest', file: 'examples/testing/ledger.jest.test.ts' },
  ])('shows exactly the $name that the typecheck compiles ($file)', ({ name, file }) => {
    expect(block(name)).toBe(readFileSync(new URL(file, root), 'utf8'));
  });

  it('opens with the install line', () => {
    expect(readme().slice(0, 1500)).toContain('npm install sqs-inbox');
  });

  it('names the tier commands that .ci/run runs, and CI runs both', () => {
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    for (const command of ['npm test', 'npm run test:deep']) {
      expect(readme()).toContain(`\`${command}\``);
      expect(ci).toMatch(new RegExp(`^tier '[^']+' ${command}$`, 'm'));
    }
  });
});

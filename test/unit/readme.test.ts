import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

describe('README', () => {
  it('shows exactly the quick start that the typecheck compiles (examples/quickStart.ts)', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const block =
      /<!-- quick-start:begin[^>]*-->\n```ts\n([\s\S]*?)```\n<!-- quick-start:end -->/.exec(
        readme,
      )?.[1];

    expect(block).toBe(readFileSync(new URL('examples/quickStart.ts', root), 'utf8'));
  });

  it('names the test command that .ci/run runs', () => {
    expect(readFileSync(new URL('README.md', root), 'utf8')).toContain('npm test');
    expect(readFileSync(new URL('.ci/run', root), 'utf8')).toMatch(/^npm test$/m);
  });
});

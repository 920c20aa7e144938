import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runLinkCheck } from '../../../../tools/docs/docsCheckSteps.js';

describe("the built pages' check", () => {
  let dist = '';
  afterEach(() => {
    rmSync(dist, { recursive: true, force: true });
    vi.restoreAllMocks();
  });

  it("fails a page whose code block shows an example's // ---cut--- line, and not a page whose prose names it", () => {
    dist = mkdtempSync(join(tmpdir(), 'docs-dist-'));
    writeFileSync(
      join(dist, 'changelog.html'),
      "<p>a prelude above '// ---cut---' is cut from the pages</p>",
    );
    writeFileSync(
      join(dist, 'api.html'),
      '<pre class="shiki"><code><span>// ---cut---</span>\n<span>tx.put(item);</span></code></pre>',
    );
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => printed.push(line));

    expect(runLinkCheck(dist).ok).toBe(false);
    expect(printed.filter((line) => line.includes('---cut---'))).toEqual([
      "  api.html: shows a `// ---cut---` line: the build did not cut an example's prelude",
    ]);
  });
});

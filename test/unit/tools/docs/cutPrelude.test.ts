import { describe, expect, it } from 'vitest';
import { preludeOf, withoutPreludes } from '../../../../tools/docs/cutPrelude.js';

const FENCE = '```';

describe('withoutPreludes', () => {
  it("removes a code block's lines up to its last // ---cut--- and leaves other blocks and text alone", () => {
    const markdown = `# API\n\n${FENCE}ts\ndeclare const a: number;\n// ---cut---\nconst b = a;\n${FENCE}\n\ntext // ---cut---\n\n${FENCE}ts\nconst c = 1;\n${FENCE}\n`;
    expect(withoutPreludes(markdown)).toBe(
      `# API\n\n${FENCE}ts\nconst b = a;\n${FENCE}\n\ntext // ---cut---\n\n${FENCE}ts\nconst c = 1;\n${FENCE}\n`,
    );
  });
});

describe('preludeOf', () => {
  it('counts the lines up to the last cut, and says whether anything is left to show', () => {
    expect(preludeOf('declare const a: number;\n// ---cut---\nconst b = a;')).toEqual({
      lines: 2,
      showsCode: true,
    });
    expect(preludeOf('declare const a: number;\n// ---cut---\n\n')).toEqual({
      lines: 2,
      showsCode: false,
    });
    expect(preludeOf('const b = 1;')).toBeUndefined();
  });
});

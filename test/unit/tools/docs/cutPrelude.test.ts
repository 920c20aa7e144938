import { describe, expect, it } from 'vitest';
import { cutIndex, withoutPreludes } from '../../../../tools/docs/cutPrelude.js';

const FENCE = '```';

describe('withoutPreludes', () => {
  it("removes a code block's lines up to its last // ---cut--- and leaves other blocks and text alone", () => {
    const markdown = `# API\n\n${FENCE}ts\ndeclare const a: number;\n// ---cut---\nconst b = a;\n${FENCE}\n\ntext // ---cut---\n\n${FENCE}ts\nconst c = 1;\n${FENCE}\n`;
    expect(withoutPreludes(markdown)).toBe(
      `# API\n\n${FENCE}ts\nconst b = a;\n${FENCE}\n\ntext // ---cut---\n\n${FENCE}ts\nconst c = 1;\n${FENCE}\n`,
    );
  });
});

describe('cutIndex', () => {
  it("finds a block's last cut line, whitespace around it allowed, and -1 without one", () => {
    expect(cutIndex(['declare const a: number;', '// ---cut---', 'const b = a;'])).toBe(1);
    expect(cutIndex(['// ---cut---', 'x;', '  // ---cut---  ', 'y;'])).toBe(2);
    expect(cutIndex(['const b = 1; // ---cut---'])).toBe(-1);
  });
});

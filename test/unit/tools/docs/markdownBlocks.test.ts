import { describe, expect, it } from 'vitest';
import { codeBlocks, fileIncludes } from '../../../../tools/docs/markdownBlocks.js';

const page = [
  '# Title', //                                    1
  '', //                                           2
  '```ts old-api', //                              3
  'const a = 1;', //                               4
  '```', //                                        5
  '', //                                           6
  '````md', //                                     7
  '```ts', //                                      8
  'not a block of its own', //                     9
  '```', //                                        10
  '````', //                                       11
  '- a list item', //                              12
  '  ```ts:line-numbers {2} [file.ts]', //         13
  '  const b = 2;', //                             14
  '  ```', //                                      15
  '~~~sh', //                                      16
  'npm test', //                                   17
  '~~~', //                                        18
].join('\n');

describe('codeBlocks', () => {
  it('reads each fenced block with its language, meta words, fence line and text', () => {
    expect(codeBlocks(page)).toEqual([
      { lang: 'ts', meta: ['old-api'], fenceLine: 3, closeLine: 5, code: 'const a = 1;' },
      {
        lang: 'md',
        meta: [],
        fenceLine: 7,
        closeLine: 11,
        code: '```ts\nnot a block of its own\n```',
      },
      { lang: 'ts', meta: [], fenceLine: 13, closeLine: 15, code: 'const b = 2;' },
      { lang: 'sh', meta: [], fenceLine: 16, closeLine: 18, code: 'npm test' },
    ]);
  });

  it('reads a block inside a blockquote without its markers, closed by its fence or the end of the quote, and lowercases the language', () => {
    const quoted = [
      '> ```TS',
      '> const a = 1;',
      '>   const b = 2;',
      '> ```',
      '> ```ts',
      '> open',
      'out',
    ];
    expect(codeBlocks(quoted.join('\n'))).toEqual([
      { lang: 'ts', meta: [], fenceLine: 1, closeLine: 4, code: 'const a = 1;\n  const b = 2;' },
      { lang: 'ts', meta: [], fenceLine: 5, closeLine: 7, code: 'open' },
    ]);
  });

  it('runs a block left open to the end of the page', () => {
    expect(codeBlocks('```ts\nconst a = 1;')).toEqual([
      { lang: 'ts', meta: [], fenceLine: 1, closeLine: 2, code: 'const a = 1;' },
    ]);
  });
});

describe('fileIncludes', () => {
  it('reads code and markdown includes with their regions, and none inside a code block', () => {
    const markdown = [
      '<<< @/../examples/quickStart/ledger.ts',
      '```md',
      '<<< @/not/an/include.ts',
      '```',
      '  <<< ./local.ts#handler{2-4 ts:line-numbers} [ledger.ts]',
      'Text <!--@include: ./part.md#intro{1,3}--> more',
    ].join('\n');
    expect(fileIncludes(markdown)).toEqual([
      { path: '@/../examples/quickStart/ledger.ts', region: undefined, line: 1 },
      { path: './local.ts', region: 'handler', line: 5 },
      { path: './part.md', region: 'intro', line: 6 },
    ]);
  });
});

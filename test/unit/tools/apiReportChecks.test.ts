import { describe, expect, it } from 'vitest';
import { undocumentedNames, unexportedTypes } from '../../../tools/cli/apiReportChecks.js';

const report = (lines: readonly string[], newline = '\n') => lines.join(newline);

describe('the API report checks', () => {
  it('finds an export without TSDoc, whichever line endings the report has', () => {
    const lines = [
      '// @public (undocumented)',
      'export const newThing = 1;',
      '// @public',
      'export function documented(): void;',
      '// @beta (undocumented)',
      'export interface Later {',
      '    // (undocumented)',
      '    member: string;',
      '}',
    ];

    expect(undocumentedNames(report(lines))).toEqual(['newThing', 'Later']);
    expect(undocumentedNames(report(lines, '\r\n'))).toEqual(['newThing', 'Later']);
  });

  it('names a type a public signature uses that no entry exports, not one another entry exports', () => {
    const root = report([
      '// Warning: (ae-forgotten-export) The symbol "Level" needs to be exported by the entry point index.d.ts',
      '// Warning: (ae-forgotten-export) The symbol "TransactItem" needs to be exported by the entry point index.d.ts',
      'export function createConsoleLogger(level?: Level): InboxLogger;',
    ]);
    const types = report(['// @public', 'export type TransactItem = {};']);

    expect(unexportedTypes([root, types])).toEqual([
      'Level is used by a public declaration but no entry point exports it',
    ]);
  });
});

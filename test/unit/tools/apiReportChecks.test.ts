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

    const names = ['newThing', 'Later', 'Later.member'];
    expect(undocumentedNames(report(lines))).toEqual(names);
    expect(undocumentedNames(report(lines, '\r\n'))).toEqual(names);
  });

  it('finds a member without TSDoc, named by its owner, after a warning or with its own release tag', () => {
    const lines = [
      '// @public',
      'export class Sender {',
      '    // Warning: (ae-forgotten-export) The symbol "Message" needs to be exported by the entry point index.d.ts',
      '    //',
      '    // (undocumented)',
      '    send(message: Message): Promise<void>;',
      '    get client(): Client;',
      '}',
      '// @public',
      'export interface Settings {',
      '    // @beta (undocumented)',
      '    readonly coalesce?: boolean;',
      '    readonly concurrency?: number;',
      '}',
    ];

    expect(undocumentedNames(report(lines))).toEqual(['Sender.send', 'Settings.coalesce']);
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

import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../tools/cli/runCommand.js';
import { requireProgram } from '../../../tools/emulator/processes.js';

describe('requireProgram', () => {
  it('passes when the program runs', () => {
    expect(() => requireProgram(process.execPath, ['--version'], 'Node.js')).not.toThrow();
  });

  it('names the missing program and what to install, in one line', () => {
    const attempt = () =>
      requireProgram('/nonexistent/java', ['-version'], 'Java 17 or later for DynamoDB Local');

    expect(attempt).toThrow(CommandError);
    expect(attempt).toThrow(
      /^\/nonexistent\/java was not found\. Install Java 17 or later for DynamoDB Local\.$/,
    );
  });

  it('says which probe failed when the program is there but unfit', () => {
    expect(() =>
      requireProgram(process.execPath, ['-e', 'process.exit(1)'], 'Python 3.10 with venv'),
    ).toThrow(/failed\. Install Python 3\.10 with venv\.$/);
  });
});

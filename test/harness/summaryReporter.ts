import type { Reporter, TestModule } from 'vitest/node';

/** How much of a failure's first message line the closing summary keeps. */
const MESSAGE_CHARS = 300;

/**
 * Prints, after Vitest's own report, one line per failed test or module (project, file, name and
 * the first line of its error) and a closing `tests: N passed, N failed, N skipped`, so that CI's
 * last lines alone say what failed, and people read the totals of every project at a glance.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const failures: string[] = [];
    for (const module of testModules) {
      const where = `[${module.project.name}] ${module.relativeModuleId}`;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') counts.passed++;
        else if (result.state === 'failed') {
          counts.failed++;
          failures.push(`${where} > ${test.fullName}: ${firstLine(result.errors?.[0]?.message)}`);
        } else counts.skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) {
        counts.failed++;
        failures.push(`${where}: ${firstLine(module.errors()[0]?.message)}`);
      }
    }
    const failed = failures.map((line) => `FAILED ${line}\n`).join('');
    process.stdout.write(
      `\n${failed}tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}

function firstLine(message: string | undefined): string {
  return (message ?? 'no error message').split('\n', 1)[0]?.slice(0, MESSAGE_CHARS) ?? '';
}

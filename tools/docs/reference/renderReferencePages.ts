import type { JSONOutput } from 'typedoc';
import { renderEnvironment, renderMetrics } from './constantTables.js';
import { OPTION_SECTIONS } from './optionSections.js';
import { renderConfiguration } from './renderConfiguration.js';
import { renderErrors } from './renderErrors.js';
import { indexProject } from './typedocIndex.js';

/**
 * The four generated reference pages, by file name under docs/reference/, from TypeDoc's JSON
 * model of the package (`typedoc --json`, every entry point of package.json's `exports`).
 * Throws, naming every member at once, when the TSDoc lacks what a page needs.
 *
 * @example
 * ```ts
 * const pages = renderReferencePages(JSON.parse(readFileSync('.cache/docs/typedoc.json', 'utf8')));
 * ```
 */
export function renderReferencePages(
  project: JSONOutput.ProjectReflection,
): Record<string, string> {
  const index = indexProject(project);
  const pages: Record<string, string> = {};
  const problems: string[] = [];
  const renderers: Record<string, () => string> = {
    'configuration.md': () => renderConfiguration(index, OPTION_SECTIONS),
    'environment.md': () => renderEnvironment(index),
    'metrics.md': () => renderMetrics(index),
    'errors.md': () => renderErrors(index),
  };
  for (const [file, render] of Object.entries(renderers)) {
    try {
      pages[file] = render();
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return pages;
}

import type { JSONOutput } from 'typedoc';
import { createMarkdownRenderer } from 'vitepress';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTemplate } from 'vue/compiler-sfc';
import {
  renderEnvironment,
  renderMetrics,
} from '../../../../tools/docs/reference/constantTables.js';
import type { OptionSection } from '../../../../tools/docs/reference/optionSections.js';
import { renderConfiguration } from '../../../../tools/docs/reference/renderConfiguration.js';
import { renderErrors } from '../../../../tools/docs/reference/renderErrors.js';
import { indexProject } from '../../../../tools/docs/reference/typedocIndex.js';
import { fixtureModel } from './fixtureModel.js';

const SECTIONS: readonly OptionSection[] = [
  {
    heading: 'DemoOptions',
    givenAs: '`demo(options)`',
    interfaces: [{ name: 'DemoOptions', file: 'index.ts' }],
  },
  {
    heading: 'group',
    givenAs: '`group` of `DemoOptions`',
    interfaces: [{ name: 'DemoGroup', file: 'index.ts' }],
  },
];

let project: JSONOutput.ProjectReflection;
beforeAll(async () => {
  project = await fixtureModel();
}, 60_000);

/** The project with one member of one declaration changed (a deep copy: the fixture stays). */
function withMember(
  owner: string,
  member: string,
  change: (m: JSONOutput.DeclarationReflection) => void,
) {
  const copy = structuredClone(project);
  const find = (
    node: JSONOutput.DeclarationReflection,
  ): JSONOutput.DeclarationReflection | undefined => {
    if (node.name === owner) {
      const children =
        node.type?.type === 'reflection' ? node.type.declaration.children : node.children;
      return children?.find((c) => c.name === member);
    }
    for (const child of node.children ?? []) {
      const found = find(child);
      if (found) return found;
    }
    return undefined;
  };
  const target = (copy.children ?? []).map(find).find((found) => found !== undefined);
  if (target === undefined) throw new Error(`the fixture has no ${owner}.${member}`);
  change(target);
  return indexProject(copy);
}

/** The page as VitePress renders it, compiled as the Vue template VitePress makes of it. */
async function compiledAsVitePressPage(markdown: string) {
  const md = await createMarkdownRenderer(process.cwd(), {}, '/');
  const html = md.render(markdown, {});
  const { errors, ast } = compileTemplate({
    source: `<div>${html}</div>`,
    filename: 'page.md',
    id: 'page',
  });
  const interpolations: string[] = [];
  const walk = (node: { type: number; loc: { source: string }; children?: unknown[] }) => {
    // NodeTypes.INTERPOLATION: `{{ … }}` that Vue would evaluate.
    if (node.type === 5) interpolations.push(node.loc.source);
    for (const child of node.children ?? []) walk(child as typeof node);
  };
  if (ast) walk(ast as unknown as Parameters<typeof walk>[0]);
  return { html, errors, interpolations };
}

describe('the configuration page', () => {
  it('has one section per option group, a row per option with its type, default and summary', () => {
    const page = renderConfiguration(indexProject(project), SECTIONS);

    expect(page).toMatch(/^# Configuration\n\n.+\n\nThis page is generated from the TSDoc/);
    expect(page.match(/^## .+$/gm)).toEqual(['## DemoOptions', '## group']);
    expect(page).toContain('| `name` | `string` | required | Who it is. |');
    expect(page).toContain('| `attempts` | `number` | `3` | Attempts, 1 to 10. |');
    expect(page).toContain(
      '| `marginMillis` | `number` | none: no margin | The margin, in milliseconds. |',
    );
  });

  it("links an option that is a group to the group's section", () => {
    const page = renderConfiguration(indexProject(project), SECTIONS);

    expect(page).toContain(
      "| `group` | `DemoGroup` | each member's default | The group of margins. See [group](#group). |",
    );
  });

  it('fails naming an optional member without a @defaultValue', () => {
    const index = withMember('DemoGroup', 'marginMillis', (m) => {
      if (m.comment) m.comment.blockTags = [];
    });

    expect(() => renderConfiguration(index, SECTIONS)).toThrow(
      'group.marginMillis (DemoGroup) is optional and has no @defaultValue',
    );
  });

  it('fails naming a member without a summary, required or not', () => {
    const index = withMember('DemoOptions', 'name', (m) => {
      delete m.comment;
    });

    expect(() => renderConfiguration(index, SECTIONS)).toThrow(
      'DemoOptions.name (DemoOptions) has no summary',
    );
  });

  it('escapes what VitePress would misread: | splits no cell, <name> opens no element, {{ }} is shown as written', async () => {
    const page = renderConfiguration(indexProject(project), SECTIONS);
    const { html, errors, interpolations } = await compiledAsVitePressPage(page);

    expect(errors).toEqual([]);
    expect(interpolations).toEqual([]);
    const modeRow = html.split('<tr>').find((row) => row.includes('<code>mode</code>')) ?? '';
    expect(modeRow.match(/<td>/g)).toHaveLength(4);
    expect(modeRow).toContain("<code>'a' | 'b'</code>");
    expect(modeRow).toContain('{{ reader }}');
    expect(modeRow).toContain('&lt;name&gt;');
  });
});

describe('the environment and metrics pages', () => {
  it('lists each variable with its constant, a prefix as a family of variables', () => {
    const page = renderEnvironment(indexProject(project));

    expect(page).toContain(
      "| `DEMO_TABLE_NAME` | `InboxEnvironment.TableName` | The table's name. |",
    );
    expect(page).toContain(
      '| `DEMO_TABLE_<name>` | `InboxEnvironment.TablePrefix` | Each table as this prefix + its name. |',
    );
  });

  it('lists each metric with the unit its summary opens with, and the remarks as the introduction', () => {
    const page = renderMetrics(indexProject(project));

    expect(page).toContain(
      '| `DemoProcessed` | Count | records processed. | `InboxMetric.Processed` |',
    );
    expect(page).toContain(
      '| `DemoLatency` | Milliseconds | how long the handler ran. | `InboxMetric.Latency` |',
    );
    expect(page).toContain('One dimension, `service`.');
  });

  it('fails naming a metric whose summary does not open with its unit', () => {
    const index = withMember('InboxMetric', 'Latency', (m) => {
      if (m.comment) m.comment.summary = [{ kind: 'text', text: 'how long the handler ran.' }];
    });

    expect(() => renderMetrics(index)).toThrow(
      "InboxMetric.Latency's summary does not open with its unit",
    );
  });

  it('fails naming a variable without a summary', () => {
    const index = withMember('InboxEnvironment', 'TablePrefix', (m) => {
      delete m.comment;
    });

    expect(() => renderEnvironment(index)).toThrow('InboxEnvironment.TablePrefix has no summary');
  });
});

describe('the errors page', () => {
  it('has a section per error class, the base first, each permanent or not by its class and with its fields', () => {
    const page = renderErrors(indexProject(project));

    expect(page.match(/^## .+$/gm)).toEqual([
      '## InboxError',
      '## PermanentError',
      '## BusyError',
      '## ParseError',
    ]);
    const section = (name: string) =>
      page.split(/^## /m).find((s) => s.startsWith(`${name}\n`)) ?? '';
    expect(section('ParseError')).toContain('**Permanent** extends `PermanentError`');
    expect(section('ParseError')).toContain(
      '| `position` | `number` | Where the parser stopped, from 0. |',
    );
    expect(section('BusyError')).toContain('**Not permanent** extends `InboxError`');
    expect(section('BusyError')).not.toContain('| field |');
    expect(section('InboxError')).toContain('Its name is a fixed string.');
    expect(section('PermanentError')).toContain(
      'Import it from `sqs-inbox/errors` and `sqs-inbox`.',
    );
    expect(section('ParseError')).toContain('Import it from `sqs-inbox/errors`.');
  });

  it('fails naming a field without a summary', () => {
    const index = withMember('ParseError', 'position', (m) => {
      delete m.comment;
    });

    expect(() => renderErrors(index)).toThrow('ParseError.position has no summary');
  });
});

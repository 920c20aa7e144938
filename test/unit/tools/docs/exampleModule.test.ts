import { describe, expect, it } from 'vitest';
import { declaredNames, exampleModule } from '../../../../tools/docs/exampleModule.js';

describe('exampleModule', () => {
  const scope = [
    {
      specifier: 'pkg',
      names: new Map([
        ['a', true],
        ['T', false],
      ]),
    },
    {
      specifier: 'pkg/more',
      names: new Map([
        ['a', true],
        ['b', true],
      ]),
    },
  ];

  it('imports no name the example binds itself, and a name two modules export from the first', () => {
    expect(exampleModule("import { a } from 'elsewhere';\nconst b = a;", scope)).toBe(
      "import { a } from 'elsewhere';\nconst b = a;\nimport { type T } from 'pkg';\n",
    );
    expect(exampleModule('a;', scope)).toBe(
      "a;\nimport { a, type T } from 'pkg';\nimport { b } from 'pkg/more';\n",
    );
  });

  it('finds the names an example binds: imports, destructured variables, functions, classes and types', () => {
    const code =
      "import d, * as ns from 'x';\nconst { p, q: [r] } = o;\nfunction f() {}\nclass C {}\ntype T = 1;\ninterface I {}\nenum E {}";
    expect([...declaredNames(code)].sort()).toEqual(['C', 'E', 'I', 'T', 'd', 'f', 'ns', 'p', 'r']);
  });
});

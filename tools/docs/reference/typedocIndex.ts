import type { JSONOutput } from 'typedoc';

/** A declaration in TypeDoc's JSON: a module, class, interface, variable, property, … */
export type Declaration = JSONOutput.DeclarationReflection;

/** TypeDoc's reflection kinds this renderer reads (`ReflectionKind` in TypeDoc's model). */
export const Kind = {
  Module: 2,
  Variable: 32,
  Class: 128,
  Interface: 256,
  Property: 1024,
  Reference: 4194304,
} as const;

/**
 * The declarations of one TypeDoc JSON project by id and by name, and the modules by entry
 * (`errors` or, with a `@module` tag, `sqs-inbox/errors`).
 *
 * @example
 * ```ts
 * const settings = indexProject(project).declaration('ProcessorSettings', Kind.Interface);
 * ```
 */
export interface TypedocIndex {
  /** The declaration with that id; throws when there is none. */
  byId(id: number): Declaration;
  /** The one declaration (not a re-export) with that name and kind; throws naming it otherwise. */
  declaration(name: string, kind: number): Declaration;
  /**
   * What an entry point exports, re-exports resolved to their declarations: `'.'` the root,
   * `'errors'` the `errors` entry (module `errors`, or `sqs-inbox/errors` with a `@module` tag).
   */
  exportsOf(entry: string): readonly Declaration[];
}

function collect(node: Declaration, into: Map<number, Declaration>): void {
  into.set(node.id, node);
  for (const child of node.children ?? []) collect(child, into);
  const type = node.type;
  if (type?.type === 'reflection') collect(type.declaration, into);
}

/**
 * Indexes a project as `typedoc --json` writes it (or `app.serializer.projectToObject`).
 *
 * @example
 * ```ts
 * const index = indexProject(JSON.parse(readFileSync('typedoc.json', 'utf8')));
 * ```
 */
export function indexProject(project: JSONOutput.ProjectReflection): TypedocIndex {
  const byId = new Map<number, Declaration>();
  for (const child of project.children ?? []) collect(child, byId);
  const modules = (project.children ?? []).filter((child) => child.kind === Kind.Module);
  // A re-export (`export { X } from …`) is a reference reflection naming its declaration.
  const resolve = (node: Declaration): Declaration => {
    const target =
      node.kind === Kind.Reference ? (node as JSONOutput.ReferenceReflection).target : -1;
    return target >= 0 ? index.byId(target) : node;
  };
  const index: TypedocIndex = {
    byId(id) {
      const found = byId.get(id);
      if (found === undefined) throw new Error(`TypeDoc's JSON has no reflection ${id}`);
      return found;
    },
    declaration(name, kind) {
      const found = [...byId.values()].filter((node) => node.name === name && node.kind === kind);
      if (found.length !== 1)
        throw new Error(
          `TypeDoc's JSON has ${found.length} declarations of ${name} (kind ${kind}), not one`,
        );
      return found[0] as Declaration;
    },
    exportsOf(entry) {
      const names =
        entry === '.' ? ['index', project.packageName] : [entry, `${project.packageName}/${entry}`];
      const module = modules.find((m) => names.includes(m.name));
      if (module === undefined)
        throw new Error(
          `TypeDoc's JSON has no module ${entry} (modules: ${modules.map((m) => m.name).join(', ')})`,
        );
      return (module.children ?? []).map(resolve);
    },
  };
  return index;
}

/**
 * A declaration's children in the order of the source: TypeDoc numbers reflections as it
 * converts them, declaration by declaration, and sorts children by name by default.
 *
 * @example
 * ```ts
 * const names = inSourceOrder(settings).map((member) => member.name);
 * ```
 */
export function inSourceOrder(node: Declaration): Declaration[] {
  return [...(node.children ?? [])].sort((a, b) => a.id - b.id);
}

/**
 * The members of an object-literal constant (`export const X = { … } as const`).
 *
 * @example
 * ```ts
 * const metrics = constantMembers(index.declaration('InboxMetric', Kind.Variable));
 * ```
 */
export function constantMembers(variable: Declaration): Declaration[] {
  const type = variable.type;
  if (type?.type !== 'reflection')
    throw new Error(`${variable.name} is not an object literal constant in TypeDoc's JSON`);
  return inSourceOrder(type.declaration);
}

/**
 * A member's TSDoc: a property's own, a method's on its (first) signature, where TypeDoc puts it.
 *
 * @example
 * ```ts
 * const summary = commentOf(member)?.summary ?? [];
 * ```
 */
export function commentOf(member: Declaration): JSONOutput.Comment | undefined {
  return member.comment ?? member.signatures?.[0]?.comment;
}

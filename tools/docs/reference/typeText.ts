import type { JSONOutput } from 'typedoc';
import type { Declaration } from './typedocIndex.js';

type SomeType = JSONOutput.SomeType;

function literalText(value: JSONOutput.LiteralType['value']): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value !== null && typeof value === 'object')
    return `${value.negative ? '-' : ''}${value.value}n`;
  return String(value);
}

function wrapped(type: SomeType): string {
  const text = typeText(type);
  return type.type === 'union' || type.type === 'intersection' || signatureOf(type)
    ? `(${text})`
    : text;
}

function signatureOf(type: SomeType): JSONOutput.SignatureReflection | undefined {
  return type.type === 'reflection' ? type.declaration.signatures?.[0] : undefined;
}

function signatureText(signature: JSONOutput.SignatureReflection): string {
  const parameters = (signature.parameters ?? []).map(
    (p) => `${p.name}${p.flags.isOptional ? '?' : ''}: ${p.type ? typeText(p.type) : 'unknown'}`,
  );
  return `(${parameters.join(', ')}) => ${signature.type ? typeText(signature.type) : 'void'}`;
}

function objectText(declaration: Declaration): string {
  const signature = declaration.signatures?.[0];
  if (signature) return signatureText(signature);
  const members = (declaration.children ?? []).map(
    (m) => `${m.name}${m.flags.isOptional ? '?' : ''}: ${m.type ? typeText(m.type) : 'unknown'}`,
  );
  return members.length === 0 ? '{}' : `{ ${members.join('; ')} }`;
}

/**
 * A type from TypeDoc's JSON written as TypeScript, compactly (no `readonly` on object
 * members, `readonly T[]` kept), for a reference table's type column.
 *
 * @example
 * ```ts
 * typeText(member.type); // "'concurrent' | 'before' | 'off'"
 * ```
 */
export function typeText(type: SomeType): string {
  switch (type.type) {
    case 'intrinsic':
      return type.name;
    case 'literal':
      return literalText(type.value);
    case 'reference': {
      const args = type.typeArguments?.map(typeText).join(', ');
      return args ? `${type.name}<${args}>` : type.name;
    }
    case 'union':
      return type.types.map(typeText).join(' | ');
    case 'intersection':
      return type.types.map(wrapped).join(' & ');
    case 'array':
      return `${wrapped(type.elementType)}[]`;
    case 'typeOperator':
      return `${type.operator} ${typeText(type.target)}`;
    case 'reflection':
      return objectText(type.declaration);
    case 'query':
      return `typeof ${typeText(type.queryType)}`;
    case 'indexedAccess':
      return `${typeText(type.objectType)}[${typeText(type.indexType)}]`;
    case 'tuple':
      return `[${(type.elements ?? []).map(typeText).join(', ')}]`;
    default:
      return type.type;
  }
}

/**
 * The names of the types a type refers to, its type arguments' included: `Partial<InboxRuntime>`
 * refers to `Partial` and `InboxRuntime`.
 *
 * @example
 * ```ts
 * referencedNames(member.type); // ['Partial', 'InboxRuntime']
 * ```
 */
export function referencedNames(type: SomeType): string[] {
  if (type.type === 'reference')
    return [type.name, ...(type.typeArguments ?? []).flatMap(referencedNames)];
  if (type.type === 'union' || type.type === 'intersection')
    return type.types.flatMap(referencedNames);
  if (type.type === 'array') return referencedNames(type.elementType);
  if (type.type === 'typeOperator') return referencedNames(type.target);
  return [];
}

/**
 * A member's type: a property's, or a method's signature as a function type.
 *
 * @example
 * ```ts
 * memberTypeText(runtimeNow); // '() => number'
 * ```
 */
export function memberTypeText(member: Declaration): string {
  const signature = member.signatures?.[0];
  if (signature) return signatureText(signature);
  return member.type ? typeText(member.type) : 'unknown';
}

const GROUPS = ['deadLetter', 'reliability', 'observability', 'performance', 'runtime'] as const;

/**
 * A test's processor options: `defaults`, with `overrides` over them key by key and, within each
 * group (`performance`, `observability`, …), option by option, as flat options overrode before
 * they were grouped. `deadLetter: undefined` in `overrides` removes the group.
 */
export function withOptions<T extends object>(defaults: T, overrides: Partial<T> = {}): T {
  const merged: Record<string, unknown> = { ...defaults, ...overrides };
  for (const group of GROUPS) {
    const base = (defaults as Record<string, unknown>)[group];
    const over = (overrides as Record<string, unknown>)[group];
    if (group in overrides && over === undefined) delete merged[group];
    else if (base !== undefined && over !== undefined) merged[group] = { ...base, ...over };
  }
  return merged as T;
}

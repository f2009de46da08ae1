/**
 * Unknown option keys: a misspelled option (`tial` for `tail`, `maxEntry` for
 * `maxEntries`) would otherwise be a silent default, found only when the bill
 * comes. The option objects of the doors a new user writes by hand (`prepare`,
 * `recordUsage`, `Session`, `ToolCache`, the conversation stores, the AI SDK
 * middleware) refuse keys they do not know, naming the nearest known one.
 */
import { InvalidOptionError } from '../errors.js';

/**
 * The keys of an options type `T`, as a list the compiler keeps complete: a key
 * added to `T` and not here, or here and not in `T`, is a type error.
 */
export function optionKeys<T>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}

/** Throws an {@link InvalidOptionError} for the first own key of `value` not in `known` (`prefix` is prepended to its name). */
export function refuseUnknownKeys(value: object | undefined, known: readonly string[], prefix = ''): void {
  if (value === undefined || value === null || typeof value !== 'object') return;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || known.includes(key)) continue;
    const near = nearestKey(key, known);
    throw new InvalidOptionError(`${prefix}${key}`, `unknown option${near ? ` (did you mean ${prefix}${near}?)` : ''}; accepted: ${known.join(', ')}`, {
      value: (value as Record<string, unknown>)[key],
      expected: `one of the keys ${known.join(', ')}`,
    });
  }
}

/** The known key within edit distance 2 of `key` (case-insensitive), or else one that starts with it or it starts with (4+ chars), if any. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  return (
    known.find((x) => editDistance(x.toLowerCase(), k) <= 2) ??
    known.find((x) => {
      const y = x.toLowerCase();
      return Math.min(y.length, k.length) >= 4 && (y.startsWith(k.slice(0, -1)) || k.startsWith(y));
    })
  );
}

/** Levenshtein distance, capped: 3 stands for "more than 2". Small strings only. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

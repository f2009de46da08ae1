/**
 * Path rules shared by the stores: validation (what a key may be), the stable
 * order of listings, and the turn a path belongs to.
 */
import { parseTimelinePath } from '../timeline/paths.js';
import type { BlockPath } from '../timeline/types.js';
import { UnsafePathError } from './errors.js';

/** Longest accepted path, in characters (logical paths are far shorter). */
export const MAX_PATH_LENGTH = 1024;

/**
 * Throws {@link UnsafePathError} unless `path` is a relative, `/`-separated
 * key without `.`/`..`/empty segments, backslashes or control characters.
 */
export function assertSafePath(path: string): void {
  if (typeof path !== 'string' || path.length === 0) throw new UnsafePathError(String(path), 'empty', 'the path is empty');
  if (path.length > MAX_PATH_LENGTH) throw new UnsafePathError(path.slice(0, 80), 'too_long', `the path is longer than ${MAX_PATH_LENGTH} characters`);
  // Control characters (NUL included) truncate or confuse file names and logs.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new UnsafePathError(path, 'control_char', 'the path contains a control character (NUL, newline, …)');
  if (path.includes('\\')) throw new UnsafePathError(path, 'backslash', 'the path contains a backslash');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw new UnsafePathError(path, 'absolute', 'the path is absolute');
  for (const segment of path.split('/')) {
    if (segment === '') throw new UnsafePathError(path, 'empty_segment', 'the path has an empty segment (leading, trailing or doubled "/")');
    if (segment === '.' || segment === '..') throw new UnsafePathError(path, 'dot_segment', `the path has a "${segment}" segment`);
  }
}

/** The turn of a path: the meta's, else the one the path names. */
export function turnOf(path: BlockPath, turn?: number): number | undefined {
  return turn ?? parseTimelinePath(path)?.turn;
}

const collator = new Intl.Collator('en', { numeric: true });

/** Natural order: `turns/2/…` before `turns/10/…`; segments compared with numbers as numbers. */
export function comparePaths(a: BlockPath, b: BlockPath): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const c = collator.compare(sa[i]!, sb[i]!);
    if (c !== 0) return c;
    // The collator may call different strings equal (e.g. "01" and "1"); fall back to code units.
    if (sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
  }
  return sa.length - sb.length;
}

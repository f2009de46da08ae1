/** Tool-result content as the cache hands it out: the run result's shape, private copies, and the `[cached]` marker. */
import type { CachedContent } from './store.js';
import type { ToolRunResult } from './types.js';

/** A runner's return value is a {@link ToolRunResult} (not bare content) when it is an object with `content`. */
export function isRunResult(v: unknown): v is ToolRunResult {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'content' in v;
}

/** A copy the caller may mutate without touching what another caller received. */
export function copyContent(c: CachedContent): CachedContent {
  return typeof c === 'string' ? c : c.map((p) => ({ ...p }));
}

/**
 * Content replayed from the cache, marked: the marker on a new line after text,
 * or a final text part starting with that newline (parts are read as one text,
 * so the marker never glues onto the last word).
 */
export function withMarker(c: CachedContent, marker: string): CachedContent {
  if (typeof c === 'string') return c.length === 0 ? marker : `${c}\n${marker}`;
  return [...c.map((p) => ({ ...p })), { type: 'text' as const, text: c.length === 0 ? marker : `\n${marker}` }];
}

/** A small in-memory workspace and the tools the tests and the bench cache in front of it. */

import { fileTag } from '../../src/toolcache/policy.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { ToolCacheStore } from '../../src/toolcache/store.js';
import type { ToolCache } from '../../src/toolcache/tool-cache.js';

export interface FakeClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** Registers the design's tools: Read and Glob cached (TTL `ttlTurns`), Write and Edit write tools. */
export function registerCodingTools(cache: ToolCache, ttlTurns = 5): void {
  cache.register('Read', { cacheable: true, ttl: { turns: ttlTurns }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Glob', { cacheable: true, ttl: { turns: ttlTurns }, reads: ['file:*'] });
  cache.register('Grep', { cacheable: true, ttl: { turns: ttlTurns }, reads: ['file:*'] });
  cache.register('Write', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
}

/** Strips the `[cached]` marker a hit carries. */
export function unmark(content: unknown): unknown {
  if (typeof content === 'string') return content.replace(/\n?\[cached\]$/, '');
  if (Array.isArray(content)) {
    const last = content[content.length - 1] as { type?: string; text?: string } | undefined;
    return last?.type === 'text' && (last.text === '\n[cached]' || last.text === '[cached]') ? content.slice(0, -1) : content;
  }
  return content;
}

/** Call options with scope `s` unless another is given. */
export const opts = (callId: string, scope = 's') => ({ scope, callId });

/** A tool that counts its runs (`.runs`) and returns `value` (or `value(run number)`). */
export function counting<T>(value: T | ((n: number) => T)) {
  const f = async (_args: unknown) => {
    f.runs++;
    return typeof value === 'function' ? (value as (n: number) => T)(f.runs) : value;
  };
  f.runs = 0;
  return f;
}

/** A store that is not the memory store itself (so the cache uses hashed keys and the general path). */
export function wrapped(inner = new MemoryToolCacheStore()): ToolCacheStore {
  return {
    epoch: () => inner.epoch(),
    get: (k) => inner.get(k),
    insertIfEpoch: (e, ep) => inner.insertIfEpoch(e, ep),
    invalidate: (t) => inner.invalidate(t),
    delete: (k) => inner.delete(k),
  };
}

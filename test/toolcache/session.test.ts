/**
 * The turn-by-turn session of DESIGN.md ("Tool-result cache rules"): Read/Edit
 * of one file over turns 2–12 with a TTL of 5 turns. Every step asserts the
 * cache outcome, what ran, the reported duration, and what was evicted.
 */

import { describe, expect, it } from 'vitest';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { fakeClock, registerCodingTools } from './helpers.js';

describe('ToolCache: the design session (TTL 5 turns)', () => {
  it('hits, misses, evicts and reports durations exactly as the design table says', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now });
    registerCodingTools(cache, 5);
    const files = new Map([['src/main.rs', 'fn main() {}']]);
    const runs: string[] = [];
    let readMs = 340;
    const read = async ({ path }: { path: string }) => {
      runs.push(`Read ${path}`);
      clock.advance(readMs);
      return files.get(path) ?? 'ENOENT';
    };
    const glob = async ({ pattern }: { pattern: string }) => {
      runs.push(`Glob ${pattern}`);
      clock.advance(15);
      return [...files.keys()].sort().join('\n');
    };
    const edit = async ({ path, text }: { path: string; text: string }) => {
      runs.push(`Edit ${path}`);
      clock.advance(30);
      files.set(path, text);
      return 'ok';
    };
    let n = 0;
    const id = () => `toolu_${String(++n).padStart(2, '0')}`;
    const scope = { scope: 'tenant-1' };
    const callRead = (path = 'src/main.rs') => cache.call('Read', { path }, read, { ...scope, callId: id() });
    const callGlob = () => cache.call('Glob', { pattern: 'src/**' }, glob, { ...scope, callId: id() });

    // Turn 2: miss → run (340 ms) → insert (turn 2, paths ["src/main.rs"]).
    cache.setTurn(2);
    let r: ToolCallResult = await callRead();
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: true });
    expect(r).toMatchObject({ callId: 'toolu_01', content: 'fn main() {}', durationMs: 340 });
    expect(await cache.store.get(cache.keyOf('Read', { path: 'src/main.rs' }, 'tenant-1'))).toMatchObject({
      insertedTurn: 2,
      ttlTurns: 5,
      durationMs: 340,
      tags: ['family:file', 'file:src/main.rs', 'file~dir:', 'file~dir:src', '~all'],
    });

    // Turn 3: hit, marked, this call's id, 340 ms reported; the tool does not run. (3 − 2 = 1 < 5)
    cache.setTurn(3);
    clock.advance(1000);
    r = await callRead('./src//main.rs'); // another spelling of the same path still has its own args → its own key
    expect(r.cache.type).toBe('miss');
    r = await callRead();
    expect(r.cache).toMatchObject({ type: 'hit', insertedTurn: 2 });
    expect(r).toMatchObject({ callId: 'toolu_03', content: 'fn main() {}\n[cached]', durationMs: 340 });
    r = await callGlob(); // a whole-family reader, also cached
    expect(r.cache.type).toBe('miss');
    expect(runs).toEqual(['Read src/main.rs', 'Read ./src//main.rs', 'Glob src/**']);

    // Turn 4: Edit succeeds → runs (never cached) → evicts every entry on file:src/main.rs and the Glob; epoch +1.
    cache.setTurn(4);
    const epochBefore = await cache.store.epoch();
    r = await cache.call('Edit', { path: 'src/main.rs', text: 'fn main() { v2 }' }, edit, { ...scope, callId: id() });
    expect(r.cache.type).toBe('write');
    expect(r.cache.type === 'write' && r.cache.evicted.length).toBe(3); // both Read spellings and the Glob
    expect(await cache.store.epoch()).toBe(epochBefore + 1);
    r = await cache.call('Edit', { path: 'src/main.rs', text: 'fn main() { v2 }' }, edit, { ...scope, callId: id() });
    expect(r.cache).toEqual({ type: 'write', ok: true, evicted: [] }); // writes are never cached: it ran again
    expect(runs.filter((x) => x.startsWith('Edit'))).toHaveLength(2);

    // Turn 5: miss → run on the new content → insert (turn 5).
    cache.setTurn(5);
    readMs = 120;
    r = await callRead();
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: true });
    expect(r).toMatchObject({ content: 'fn main() { v2 }', durationMs: 120 });
    // Turn 5, same call again: hit (5 − 5 = 0 < 5).
    r = await callRead();
    expect(r.cache).toMatchObject({ type: 'hit', insertedTurn: 5 });
    expect(r.durationMs).toBe(120);

    // Turn 7: the Glob again (miss: the edit evicted it) → inserted at turn 7.
    cache.setTurn(7);
    r = await callGlob();
    expect(r.cache.type).toBe('miss');

    // Turn 9: hit (9 − 5 = 4 < 5).
    cache.setTurn(9);
    readMs = 200;
    r = await callRead();
    expect(r.cache).toMatchObject({ type: 'hit', insertedTurn: 5 });
    expect(r).toMatchObject({ content: 'fn main() { v2 }\n[cached]', durationMs: 120 });

    // Turn 10: miss (expired, removed on sight) → run → insert (turn 10). (10 − 5 = 5 ≥ 5)
    cache.setTurn(10);
    r = await callRead();
    expect(r.cache).toEqual({ type: 'miss', expired: true, inserted: true });
    expect(r.durationMs).toBe(200);

    // Turn 11: the turn-7 Glob is still fresh (11 − 7 = 4 < 5).
    cache.setTurn(11);
    expect((await callGlob()).cache.type).toBe('hit');

    // Turn 12: anything inserted at turn ≤ 7 misses and is removed lazily: the Glob (12 − 7 = 5 ≥ 5).
    cache.setTurn(12);
    r = await callGlob();
    expect(r.cache).toEqual({ type: 'miss', expired: true, inserted: true });
    // The turn-10 Read is still fresh (12 − 10 = 2 < 5).
    expect((await callRead()).cache.type).toBe('hit');

    expect(runs).toEqual([
      'Read src/main.rs', // t2
      'Read ./src//main.rs', // t3
      'Glob src/**', // t3
      'Edit src/main.rs', // t4
      'Edit src/main.rs', // t4
      'Read src/main.rs', // t5 (new content)
      'Glob src/**', // t7
      'Read src/main.rs', // t10 (expired)
      'Glob src/**', // t12 (expired)
    ]);
    const s = cache.stats();
    expect(s.perTool.Read).toMatchObject({ hits: 4, misses: 4, evictions: { write: 2, expired: 1, capacity: 0, corrupt: 0 } });
    expect(s.perTool.Glob).toMatchObject({ hits: 1, misses: 3, evictions: { write: 1, expired: 1, capacity: 0, corrupt: 0 } });
    expect(s.perTool.Edit).toMatchObject({ writes: 2, failedWrites: 0 });
    // Time saved = original durations of the hits: 340 (t3) + 120 (t5) + 120 (t9) + 200 (t12) + 15 (Glob t11).
    expect(s.timeSavedMs).toBe(340 + 120 + 120 + 200 + 15);
    expect(s.staleDrops).toBe(0);
  });
});

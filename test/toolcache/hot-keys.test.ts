/**
 * The memory hit path remembers the key of a flat argument object by its plain
 * JSON text (tool-cache.ts `#hotKeys`, key.ts `flatText`). The memo must never
 * change an answer: the same text under another tool or scope, a mutated
 * argument object, reordered keys, undefined-valued keys, a full memo, and a
 * write in between all behave as without it (compared with a store that is not
 * the memory store, which never takes the hit path).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, flatText } from '../../src/toolcache/key.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { wrapped } from './helpers.js';

function caches(): ToolCache[] {
  // One fixed clock for both: run durations (and so timeSavedMs) are 0 on both sides.
  const now = () => 1_700_000_000_000;
  return [new ToolCache({ now }), new ToolCache({ store: wrapped(), now })].map((c) => {
    c.register('Read', { cacheable: true, ttl: { turns: 50 }, reads: ['file'], tags: (a: Record<string, unknown>) => [`file:${String(a.p) || '-'}`] });
    c.register('Grep', { cacheable: true, ttl: { seconds: 600 }, reads: ['file'], tags: () => ['file:*'] });
    c.register('Edit', { cacheable: false, writes: ['file'], tags: (a: Record<string, unknown>) => [`file:${String(a.p) || '-'}`] });
    return c;
  });
}

const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -3, max: 3 }), fc.constantFrom(true, false, null, undefined, -0, 0.5, 1e21));
const key = fc.constantFrom('p', 'q', 'a', 'z', '1', '10', '2', '__proto__x');
const flat = fc.dictionary(key, scalar, { maxKeys: 4 }).map((d) => ({ p: 'x', ...d }));

describe('hot keys of the memory hit path', () => {
  it('flatText is the plain text of flat objects only, and equal texts mean equal canonical texts', () => {
    fc.assert(
      fc.property(flat, flat, (a, b) => {
        const ta = flatText(a);
        expect(ta).toBe(JSON.stringify(a));
        if (ta === flatText(b)) expect(canonicalJson(a)).toBe(canonicalJson(b));
      }),
      { numRuns: 1000 },
    );
    for (const v of [[1], { a: { b: 1 } }, { a: Number.NaN }, { a: 1n }, Object.create(null), { [Symbol('s')]: 1 }, new Map(), 'text', null]) {
      expect(flatText(v)).toBeUndefined();
    }
  });

  it('the same answers and stats as a store without the hit path, over random calls, reorders, mutations, writes and turns (property)', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('call' as const),
        tool: fc.constantFrom('Read', 'Grep'),
        scope: fc.constantFrom('s1', 's2'),
        args: flat,
        reorder: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('mutate' as const), value: scalar }),
      fc.record({ kind: fc.constant('edit' as const), p: fc.constantFrom('x', 'y') }),
      fc.record({ kind: fc.constant('turn' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const [fast, slow] = caches();
        let last: Record<string, unknown> = { p: 'x' };
        let runs = 0;
        const run = async (a: unknown) => `result ${++runs} of ${JSON.stringify(a)}`;
        for (const o of ops) {
          if (o.kind === 'turn') {
            fast!.advanceTurn();
            slow!.advanceTurn();
            continue;
          }
          if (o.kind === 'mutate') {
            last.p = o.value; // the same object, mutated in place: a new text, never the old key
            continue;
          }
          const calls: [string, unknown, string][] =
            o.kind === 'edit' ? [['Edit', { p: o.p }, 's1']] : [[o.tool, o.reorder ? Object.fromEntries(Object.entries(o.args).reverse()) : o.args, o.scope]];
          if (o.kind === 'call') last = calls[0]![1] as Record<string, unknown>;
          for (const [tool, args, scope] of calls) {
            const before = runs;
            const a = await fast!.call(tool, args, run, { scope, callId: 'f' });
            const mid = runs;
            const b = await slow!.call(tool, args, run, { scope, callId: 's' });
            expect(a.cache.type).toBe(b.cache.type);
            // A hit serves what a run of the same canonical arguments returned; both caches agree on it.
            if (a.cache.type === 'hit') expect(mid).toBe(before);
            expect(String(a.content).replace(/result \d+/, 'r')).toBe(String(b.content).replace(/result \d+/, 'r'));
          }
        }
        expect(fast!.stats()).toEqual(slow!.stats());
      }),
      { numRuns: 200 },
    );
  });

  it('a full memo is emptied and refilled without changing an answer', async () => {
    const [c] = caches();
    const run = async (a: unknown) => JSON.stringify(a);
    for (let i = 0; i < 1500; i++) expect((await c!.call('Read', { p: `f${i}` }, run, { scope: 's', callId: 'a' })).cache.type).toBe('miss');
    for (let i = 0; i < 1500; i++) {
      const r = await c!.call('Read', { p: `f${i}` }, run, { scope: 's', callId: 'b' });
      expect(r.cache.type).toBe('hit');
      expect(String(r.content)).toContain(`"f${i}"`);
    }
    // the same text under another scope or tool is its own entry
    expect((await c!.call('Read', { p: 'f1' }, run, { scope: 'other', callId: 'c' })).cache.type).toBe('miss');
    expect((await c!.call('Grep', { p: 'f1' }, run, { scope: 's', callId: 'd' })).cache.type).toBe('miss');
  });
});

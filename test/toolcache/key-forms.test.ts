/**
 * The two key forms (key.ts): hashed for every store but the in-process memory
 * store, raw canonical text (`=…`) for short arguments in the memory store; and
 * the flat-object fast path of canonicalJson, which must write the same text as
 * the general writer. Plus the memoizer's synchronous hit path: the same
 * answers as the general path, and out of the way when the store is patched.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { canonicalJson, CanonicalKeyError, hashArgs, MAX_RAW_KEY_TEXT, memoryKeyPart, toolCacheKey } from '../../src/toolcache/key.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { counting, fakeClock, opts, registerCodingTools, wrapped } from './helpers.js';

/** Values with a canonical form: JSON values (with undefined properties and -0 mixed in). */
const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.constant(-0),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 5 }),
  ),
})).value;

/** Flat objects, the fast path's domain, with keys that stress ordering (integer-like, unicode, empty). */
const flat = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 5 }), fc.nat(20).map(String), fc.constantFrom('', '__proto__', 'é', '\u{1F600}', 'Z', 'a')),
  fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
  ),
  { maxKeys: 8 },
);

/** The same properties in reverse insertion order. */
function reversed(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).reverse()) Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  return out;
}

describe('canonicalJson: the flat-object fast path', () => {
  it('writes what the general writer writes (an object inside an array takes the general path)', () => {
    fc.assert(
      fc.property(flat, (o) => {
        expect(`[${canonicalJson(o)}]`).toBe(canonicalJson([o]));
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores key order, integer-like keys included', () => {
    fc.assert(
      fc.property(flat, (o) => {
        expect(canonicalJson(reversed(o))).toBe(canonicalJson(o));
      }),
    );
    expect(canonicalJson({ 9: 'x', 10: 'y' })).toBe('{"10":"y","9":"x"}'); // code-unit order, not numeric
    expect(canonicalJson({ b: 1, a: undefined, c: -0 })).toBe('{"b":1,"c":0}');
  });

  it('leaves what has no canonical form to the general writer, which rejects it', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(CanonicalKeyError);
    expect(() => canonicalJson({ a: () => 1 })).toThrow(CanonicalKeyError);
    expect(() => canonicalJson({ a: 1, [Symbol('s')]: 2 })).toThrow(/symbol-keyed/);
    expect(canonicalJson({ a: 1n })).toBe('{"a":1}');
    expect(canonicalJson(Object.assign(Object.create(null), { b: 'x', a: 'y' }))).toBe('{"a":"y","b":"x"}');
  });
});

describe('memoryKeyPart: raw text for short arguments, the hash for long ones', () => {
  it('is "=" + the canonical text up to MAX_RAW_KEY_TEXT characters, else the sha256 hex', () => {
    expect(memoryKeyPart({ path: 'a.ts', limit: 10 })).toBe('={"limit":10,"path":"a.ts"}');
    const long = { text: 'x'.repeat(MAX_RAW_KEY_TEXT) };
    expect(memoryKeyPart(long)).toBe(hashArgs(long));
    const edge = { t: 'x'.repeat(MAX_RAW_KEY_TEXT - 8) }; // {"t":"…"} is exactly MAX_RAW_KEY_TEXT characters
    expect(canonicalJson(edge).length).toBe(MAX_RAW_KEY_TEXT);
    expect(memoryKeyPart(edge)).toBe(`=${canonicalJson(edge)}`);
    expect(() => memoryKeyPart({ a: Number.NaN }, 'Read')).toThrow(/^Read arguments: \$\.a/);
  });

  it('never gives two different arguments one key, and never a key that looks like a hash', () => {
    fc.assert(
      fc.property(jsonish, jsonish, (a, b) => {
        const ka = memoryKeyPart(a);
        const kb = memoryKeyPart(b);
        expect(ka === kb).toBe(canonicalJson(a) === canonicalJson(b));
        expect(ka.startsWith('=') || /^[0-9a-f]{64}$/.test(ka)).toBe(true);
        expect(/^[0-9a-f]{64}$/.test(ka)).toBe(canonicalJson(a).length > MAX_RAW_KEY_TEXT);
      }),
      { numRuns: 1000 },
    );
    // Near misses: the same text as a number, a string, a nested value.
    const near = [{ a: 1 }, { a: '1' }, { a: [1] }, { a: { a: 1 } }, { a: true }, { a: 'true' }, { a: null }, { a: 'null' }, {}, [], ''];
    expect(new Set(near.map((x) => memoryKeyPart(x))).size).toBe(near.length);
  });
});

describe('ToolCache keys and the synchronous hit path', () => {
  it('uses raw keys with the memory store and toolCacheKey (hashed) with any other store, session suffix for turn TTLs', () => {
    const memory = new ToolCache({ session: 's~1' });
    const other = new ToolCache({ session: 's~1', store: wrapped() });
    for (const c of [memory, other]) {
      registerCodingTools(c);
      c.register('Quote', { cacheable: true, ttl: { seconds: 10 } });
    }
    expect(memory.keyOf('Read', { path: 'a' }, 't:1')).toBe('Read:t%3A1:={"path":"a"}~s~1');
    expect(memory.keyOf('Quote', { sym: 'X' }, 't:1')).toBe('Quote:t%3A1:={"sym":"X"}');
    expect(other.keyOf('Read', { path: 'a' }, 't:1')).toBe(`${toolCacheKey('Read', { path: 'a' }, 't:1')}~s~1`);
    expect(other.keyOf('Quote', { sym: 'X' }, 't:1')).toBe(toolCacheKey('Quote', { sym: 'X' }, 't:1'));
    const long = { path: 'p'.repeat(300) };
    expect(memory.keyOf('Quote', long, '')).toBe(other.keyOf('Quote', long, ''));
    // Scopes change between calls: each key names its own scope.
    expect(memory.keyOf('Quote', {}, 'a')).not.toBe(memory.keyOf('Quote', {}, 'b'));
    expect(memory.keyOf('Quote', {}, 'a')).toBe('Quote:a:={}');
  });

  it('hits for any key order and never across different arguments, scopes or sessions sharing a store', async () => {
    const store = new MemoryToolCacheStore();
    const one = new ToolCache({ store, session: 'one' });
    const two = new ToolCache({ store, session: 'two' });
    registerCodingTools(one);
    registerCodingTools(two);
    const run = counting((n: number) => `v${n}`);
    await one.call('Read', { path: 'a', limit: 10 }, run, opts('1'));
    expect((await one.call('Read', { limit: 10, path: 'a' }, run, opts('2'))).cache.type).toBe('hit');
    expect((await one.call('Read', { limit: 10, path: 'a', offset: undefined }, run, opts('3'))).cache.type).toBe('hit');
    expect((await one.call('Read', { path: 'a', limit: '10' }, run, opts('4'))).cache.type).toBe('miss');
    expect((await one.call('Read', { path: 'a', limit: 10 }, run, opts('5', 'other-scope'))).cache.type).toBe('miss');
    expect((await two.call('Read', { path: 'a', limit: 10 }, run, opts('6'))).cache.type).toBe('miss'); // turn clocks are per session
    expect(run.runs).toBe(4);
  });

  it('answers a hit exactly as the general path does (same result, same stats)', async () => {
    const seq = async (store?: ToolCacheStore) => {
      const clock = fakeClock();
      const cache = new ToolCache({ now: clock.now, session: 'x', ...(store === undefined ? {} : { store }) });
      registerCodingTools(cache, 2);
      const out: ToolCallResult[] = [];
      const run = counting((n: number) => [{ type: 'text' as const, text: `r${n}` }]);
      for (const turn of [0, 0, 1, 2, 2]) {
        if (turn > cache.turn) cache.setTurn(turn);
        out.push(await cache.call('Read', { path: 'a' }, run, opts(`t${turn}`)));
        clock.advance(5);
      }
      out.push(await cache.call('Edit', { path: 'a' }, async () => 'ok', opts('w')));
      out.push(await cache.call('Read', { path: 'a' }, run, opts('after')));
      return {
        out: out.map((r) => ({ ...r, cache: r.cache.type === 'write' ? { ...r.cache, evicted: r.cache.evicted.length } : r.cache })),
        stats: cache.stats(),
      };
    };
    const fast = await seq();
    const general = await seq(wrapped());
    expect(fast).toEqual(general);
    expect(fast.stats.hits).toBe(3); // turn 0 again, turn 1, turn 2 again (turn 2 itself finds the entry expired)
  });

  it('steps aside when the memory store is patched or subclassed, so the patch sees every lookup', async () => {
    const store = new MemoryToolCacheStore();
    const cache = new ToolCache({ store });
    registerCodingTools(cache);
    await cache.call('Read', { path: 'a' }, async () => 'A', opts('1'));
    const spy = vi.spyOn(store, 'get');
    expect((await cache.call('Read', { path: 'a' }, async () => 'A', opts('2'))).cache.type).toBe('hit');
    expect(spy).toHaveBeenCalledTimes(1);

    class Counting extends MemoryToolCacheStore {
      gets = 0;
      override async get(key: string) {
        this.gets++;
        return super.get(key);
      }
    }
    const sub = new Counting();
    const c2 = new ToolCache({ store: sub });
    registerCodingTools(c2);
    await c2.call('Read', { path: 'a' }, async () => 'A', opts('1'));
    expect((await c2.call('Read', { path: 'a' }, async () => 'A', opts('2'))).cache.type).toBe('hit');
    expect(sub.gets).toBe(2);
  });

  it('still rejects (never throws synchronously) bad calls, and expires and removes entries on sight', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache, 1);
    const bad = cache.call('Read', { path: Number.NaN } as never, async () => 'x', opts('1'));
    await expect(bad).rejects.toThrow(CanonicalKeyError);
    await expect(cache.call('Read', { path: 'a' }, async () => 'x', undefined as never)).rejects.toThrow(/scope/);
    await cache.call('Read', { path: 'a' }, async () => 'x', opts('2'));
    // A clock that throws on the hit path: a rejection too, never a synchronous throw.
    let broken = false;
    const clocked = new ToolCache({
      now: () => {
        if (broken) throw new Error('clock down');
        return 0;
      },
    });
    clocked.register('Quote', { cacheable: true, ttl: { seconds: 10 } });
    await clocked.call('Quote', {}, async () => '1', opts('q1'));
    broken = true;
    const p = clocked.call('Quote', {}, async () => '1', opts('q2'));
    await expect(p).rejects.toThrow('clock down');
    cache.advanceTurn();
    expect((await cache.call('Read', { path: 'a' }, async () => 'y', opts('3'))).cache).toMatchObject({ type: 'miss', expired: true });
    expect(cache.stats().evictions.expired).toBe(1);
  });
});

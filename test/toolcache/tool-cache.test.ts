import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { toolCacheKey } from '../../src/toolcache/key.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { fileTag } from '../../src/toolcache/policy.js';
import type { FlightCoordinator, StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { fakeClock, registerCodingTools } from './helpers.js';

const opts = (callId: string, scope = 's') => ({ scope, callId });

function counting<T>(value: T | ((n: number) => T)) {
  const f = async (_args: unknown) => {
    f.runs++;
    return typeof value === 'function' ? (value as (n: number) => T)(f.runs) : value;
  };
  f.runs = 0;
  return f;
}

describe('ToolCache.call: pass-through', () => {
  it('runs undeclared and non-cacheable tools every time and returns their output untouched', async () => {
    const cache = new ToolCache();
    cache.register('Peek', { reads: ['file'] });
    const bash = counting({ content: [{ type: 'text', text: 'ls output' }], isError: false });
    const r1 = await cache.call('Bash', { cmd: 'ls' }, bash, opts('1'));
    const r2 = await cache.call('Bash', { cmd: 'ls' }, bash, opts('2'));
    expect(bash.runs).toBe(2);
    expect(r2).toMatchObject({ content: [{ type: 'text', text: 'ls output' }], cache: { type: 'bypass', reason: 'undeclared' } });
    expect(r1.content).toEqual(r2.content);
    const peek = counting('x');
    await cache.call('Peek', { p: 1 }, peek, opts('3'));
    expect((await cache.call('Peek', { p: 1 }, peek, opts('4'))).cache).toEqual({ type: 'bypass', reason: 'not_cacheable' });
    expect(peek.runs).toBe(2);
    expect(cache.stats().perTool.Bash?.bypassed).toBe(2);
  });

  it('requires a scope and a call id on every call', async () => {
    const cache = new ToolCache();
    await expect(cache.call('X', {}, async () => '', { callId: '1' } as never)).rejects.toThrow(InvalidOptionError);
    await expect(cache.call('X', {}, async () => '', { scope: '' } as never)).rejects.toThrow(/callId/);
  });

  it('refuses to register a tool twice', () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    expect(() => cache.register('Read', { cacheable: true, ttl: { turns: 1 } })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: tools.Read: is already registered; register each tool once]`,
    );
  });
});

describe('ToolCache.call: hits', () => {
  it('appends the marker to text, adds a text part to multi-part results, re-stamps the id, reports the original duration', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now });
    cache.register('Shot', { cacheable: true, ttl: { turns: 2 } });
    cache.register('Empty', { cacheable: true, ttl: { turns: 2 } });
    const parts = [
      { type: 'text', text: 'screenshot' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
    ];
    const shot = async () => {
      clock.advance(75);
      return parts;
    };
    await cache.call('Shot', { url: 'x' }, shot, opts('first'));
    clock.advance(5000);
    const hit = await cache.call('Shot', { url: 'x' }, shot, opts('second'));
    expect(hit).toEqual({
      tool: 'Shot',
      callId: 'second',
      content: [...parts, { type: 'text', text: '[cached]' }],
      isError: false,
      durationMs: 75,
      cache: { type: 'hit', insertedTurn: 0, insertedAtMs: 1_700_000_000_000 },
    });
    await cache.call('Empty', {}, async () => '', opts('e1'));
    expect((await cache.call('Empty', {}, async () => '', opts('e2'))).content).toBe('[cached]');
  });

  it('uses the duration a tool reports about itself', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    await cache.call('Read', { path: 'a' }, async () => ({ content: 'A', durationMs: 340 }), opts('1'));
    const hit = await cache.call('Read', { path: 'a' }, async () => 'never', opts('2'));
    expect(hit).toMatchObject({ content: 'A\n[cached]', durationMs: 340 });
    expect(cache.stats().timeSavedMs).toBe(340);
  });

  it('hits for two spellings of one call; never across scopes', async () => {
    const cache = new ToolCache();
    cache.register('Search', { cacheable: true, ttl: { turns: 3 }, reads: ['doc:*'] });
    const search = counting((n: number) => `results #${n}`);
    await cache.call('Search', { q: 'x', opts: { limit: 10, sort: 'rel' } }, search, opts('1', 'tenant-a'));
    const same = await cache.call('Search', JSON.parse('{"opts":{"sort":"rel","limit":10},"q":"x"}'), search, opts('2', 'tenant-a'));
    expect(same.cache.type).toBe('hit');
    const other = await cache.call('Search', { q: 'x', opts: { limit: 10, sort: 'rel' } }, search, opts('3', 'tenant-b'));
    expect(other).toMatchObject({ content: 'results #2', cache: { type: 'miss' } });
    expect(search.runs).toBe(2);
  });

  it('does not let a caller corrupt the cache by mutating what it received', async () => {
    const cache = new ToolCache();
    cache.register('T', { cacheable: true, ttl: { turns: 3 } });
    const r = await cache.call('T', {}, async () => [{ type: 'text', text: 'v1' }], opts('1'));
    (r.content as unknown as Array<{ text: string }>)[0]!.text = 'mutated by caller';
    const hit = await cache.call('T', {}, async () => 'never', opts('2'));
    (hit.content as unknown as Array<{ text: string }>)[0]!.text = 'mutated again';
    expect((await cache.call('T', {}, async () => 'never', opts('3'))).content).toEqual([
      { type: 'text', text: 'v1' },
      { type: 'text', text: '[cached]' },
    ]);
  });
});

describe('ToolCache.call: writes', () => {
  async function primed() {
    const cache = new ToolCache();
    registerCodingTools(cache);
    cache.register('Checkout', { writes: ['file'] });
    cache.register('UserGet', { cacheable: true, ttl: { turns: 5 }, reads: ['user'], tags: (a: { id: number }) => [`user:${a.id}`] });
    for (const path of ['a.ts', 'b.ts']) await cache.call('Read', { path }, async () => path, opts(path));
    await cache.call('Glob', { pattern: '*' }, async () => 'a.ts b.ts', opts('g'));
    await cache.call('UserGet', { id: 42 }, async () => 'Ada', opts('u'));
    const cached = async () => {
      const out: string[] = [];
      for (const path of ['a.ts', 'b.ts']) if ((await cache.call('Read', { path }, async () => '', opts('?'))).cache.type === 'hit') out.push(path);
      if ((await cache.call('Glob', { pattern: '*' }, async () => '', opts('?'))).cache.type === 'hit') out.push('glob');
      if ((await cache.call('UserGet', { id: 42 }, async () => '', opts('?'))).cache.type === 'hit') out.push('user');
      return out;
    };
    return { cache, cached };
  }

  it('an entity write evicts that entity and whole-family readers, nothing else', async () => {
    const { cache, cached } = await primed();
    const r = await cache.call('Edit', { path: './a.ts' }, async () => 'ok', opts('w'));
    expect(r.cache.type === 'write' && [...r.cache.evicted].sort()).toEqual(
      [toolCacheKey('Read', { path: 'a.ts' }, 's'), toolCacheKey('Glob', { pattern: '*' }, 's')].sort(),
    );
    expect(await cached()).toEqual(['b.ts', 'user']);
  });

  it('a family-level write evicts every reader of the family', async () => {
    const { cache, cached } = await primed();
    await cache.call('Checkout', { ref: 'main' }, async () => 'ok', opts('w'));
    expect(await cached()).toEqual(['user']);
    expect(cache.stats().evictions.write).toBe(3);
  });

  it('a failed write (thrown or is_error) evicts nothing and leaves the epoch alone', async () => {
    const { cache, cached } = await primed();
    const epoch = await cache.store.epoch();
    await expect(
      cache.call('Edit', { path: 'a.ts' }, async () => {
        throw new Error('permission denied');
      }, opts('w1')),
    ).rejects.toThrow('permission denied');
    const r = await cache.call('Edit', { path: 'a.ts' }, async () => ({ content: 'old_string not found', isError: true }), opts('w2'));
    expect(r).toMatchObject({ isError: true, cache: { type: 'write', ok: false, evicted: [] } });
    expect(await cache.store.epoch()).toBe(epoch);
    expect(await cached()).toEqual(['a.ts', 'b.ts', 'glob', 'user']);
    expect(cache.stats().perTool.Edit).toMatchObject({ writes: 0, failedWrites: 2 });
  });

  it('fails a write before it runs when its extractor names an undeclared family', async () => {
    const cache = new ToolCache();
    cache.register('Sneaky', { writes: ['file'], tags: () => ['db:users'] });
    const run = counting('ok');
    await expect(cache.call('Sneaky', {}, run, opts('1'))).rejects.toThrow(/declares writes: \[file\]/);
    expect(run.runs).toBe(0);
  });
});

describe('ToolCache.call: TTL and size', () => {
  it('treats an entry stamped by a session whose turn clock ran ahead as expired, never as fresh', async () => {
    const store = new MemoryToolCacheStore();
    const ahead = new ToolCache({ store, turn: 40 });
    const behind = new ToolCache({ store, turn: 3 });
    for (const c of [ahead, behind]) registerCodingTools(c, 5);
    await ahead.call('Read', { path: 'a' }, async () => 'old content', opts('1'));
    // Turn 3 − 40 is negative: without the guard the entry would look 37 turns younger than new.
    const r = await behind.call('Read', { path: 'a' }, async () => 'fresh content', opts('2'));
    expect(r).toMatchObject({ content: 'fresh content', cache: { type: 'miss', expired: true } });
  });

  it('expires second-based TTLs with the injected clock (now − inserted ≥ ttl)', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now });
    cache.register('Weather', { cacheable: true, ttl: { seconds: 60 } });
    const run = counting((n: number) => `sunny #${n}`);
    await cache.call('Weather', { city: 'Oslo' }, run, opts('1'));
    clock.advance(59_999);
    expect((await cache.call('Weather', { city: 'Oslo' }, run, opts('2'))).cache.type).toBe('hit');
    clock.advance(1);
    const r = await cache.call('Weather', { city: 'Oslo' }, run, opts('3'));
    expect(r).toMatchObject({ content: 'sunny #2', cache: { type: 'miss', expired: true } });
    expect(cache.stats().evictions.expired).toBe(1);
  });

  it('counts an entry’s age from the start of its miss, and stores an absolute expiry for second TTLs', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now, turn: 1 });
    registerCodingTools(cache, 2);
    cache.register('Quote', { cacheable: true, ttl: { seconds: 10 } });
    // The turn advances while the read runs (a long tool in a parallel wave): the entry is as old as the turn it started in.
    await cache.call('Read', { path: 'a' }, async () => {
      cache.advanceTurn();
      return 'A';
    }, opts('1'));
    expect(await cache.store.get(toolCacheKey('Read', { path: 'a' }, 's'))).toMatchObject({ insertedTurn: 1, ttlTurns: 2 });
    expect((await cache.call('Read', { path: 'a' }, async () => 'A2', opts('2'))).cache.type).toBe('hit'); // turn 2: 2 − 1 < 2
    cache.advanceTurn();
    expect((await cache.call('Read', { path: 'a' }, async () => 'A3', opts('3'))).cache).toMatchObject({ type: 'miss', expired: true }); // 3 − 1 ≥ 2

    const start = clock.now();
    await cache.call('Quote', { sym: 'X' }, async () => {
      clock.advance(4000);
      return '42';
    }, opts('q'));
    const e = await cache.store.get(toolCacheKey('Quote', { sym: 'X' }, 's'));
    expect(e).toMatchObject({ insertedAtMs: start, expiresAtMs: start + 10_000, durationMs: 4000 });
    expect(e && 'ttlTurns' in e).toBe(false);
  });

  it('caches nothing with a TTL of 0', async () => {
    const cache = new ToolCache();
    cache.register('Now', { cacheable: true, ttl: { turns: 0 } });
    const run = counting('t');
    await cache.call('Now', {}, run, opts('1'));
    const r = await cache.call('Now', {}, run, opts('2'));
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'ttl_zero' });
    expect(run.runs).toBe(2);
  });

  it('bounds the default store with LRU and counts capacity evictions per tool', async () => {
    const cache = new ToolCache({ maxEntries: 2 });
    registerCodingTools(cache);
    for (const path of ['a', 'b', 'a', 'c']) await cache.call('Read', { path }, async () => path, opts(path));
    // a was used again after b, so b is the least recently used when c arrives.
    expect(cache.stats().perTool.Read?.evictions.capacity).toBe(1);
    expect((await cache.call('Read', { path: 'a' }, async () => '', opts('x'))).cache.type).toBe('hit');
    expect((await cache.call('Read', { path: 'b' }, async () => 'b', opts('y'))).cache.type).toBe('miss');
    expect(() => new ToolCache({ maxEntries: 2, store: new MemoryToolCacheStore() })).toThrow(/maxEntries/);
  });

  it('keeps the turn clock monotonic', () => {
    const cache = new ToolCache({ turn: 3 });
    expect(cache.advanceTurn()).toBe(4);
    expect(() => cache.setTurn(2)).toThrowErrorMatchingInlineSnapshot(`[InvalidOptionError: turn: cannot go backwards (from 4 to 2)]`);
    expect(() => cache.advanceTurn(-1)).toThrow(InvalidOptionError);
  });

  it('drops an entry that does not belong to its key (e.g. a corrupt shared store) instead of serving it', async () => {
    const store = new MemoryToolCacheStore();
    const cache = new ToolCache({ store });
    registerCodingTools(cache);
    const key = toolCacheKey('Read', { path: 'a' }, 'tenant-a');
    const foreign: StoredEntry = { key, tool: 'Read', scope: 'tenant-b', content: 'secret', durationMs: 1, insertedTurn: 0, insertedAtMs: 0, ttlTurns: 5, tags: [] };
    await store.insertIfEpoch(foreign, await store.epoch());
    const r = await cache.call('Read', { path: 'a' }, async () => 'mine', opts('1', 'tenant-a'));
    expect(r).toMatchObject({ content: 'mine', cache: { type: 'miss', inserted: true } });
    expect(cache.stats().evictions.corrupt).toBe(1);
  });
});

/** Wraps a store and makes the chosen methods throw while `failing` is on. */
class FlakyStore implements ToolCacheStore {
  failing = true;
  constructor(
    readonly inner: MemoryToolCacheStore,
    readonly methods: ReadonlyArray<keyof ToolCacheStore>,
  ) {}
  #gate(m: keyof ToolCacheStore): void {
    if (this.failing && this.methods.includes(m)) throw new Error(`store ${m} unreachable`);
  }
  async epoch() {
    this.#gate('epoch');
    return this.inner.epoch();
  }
  async get(k: string) {
    this.#gate('get');
    return this.inner.get(k);
  }
  async insertIfEpoch(e: StoredEntry, ep: number) {
    this.#gate('insertIfEpoch');
    return this.inner.insertIfEpoch(e, ep);
  }
  async invalidate(t: readonly string[]) {
    this.#gate('invalidate');
    return this.inner.invalidate(t);
  }
  async delete(k: string) {
    this.#gate('delete');
    return this.inner.delete(k);
  }
}

describe('ToolCache with a failing store', () => {
  it('passes every call through to the tool when every store method throws, and counts the errors', async () => {
    const cache = new ToolCache({ store: new FlakyStore(new MemoryToolCacheStore(), ['epoch', 'get', 'insertIfEpoch', 'invalidate', 'delete']) });
    registerCodingTools(cache);
    const read = counting((n: number) => `v${n}`);
    const r1 = await cache.call('Read', { path: 'a' }, read, opts('1'));
    const r2 = await cache.call('Read', { path: 'a' }, read, opts('2'));
    expect([r1.content, r2.content]).toEqual(['v1', 'v2']);
    expect(r2.cache.type).toBe('bypass');
    const w = await cache.call('Edit', { path: 'a' }, async () => 'ok', opts('3'));
    expect(w).toMatchObject({ content: 'ok', cache: { type: 'write', ok: true } });
    expect(cache.stats().storeErrors).toBeGreaterThanOrEqual(3);
  });

  it('still runs the tool when only the insert fails, and does not cache', async () => {
    const cache = new ToolCache({ store: new FlakyStore(new MemoryToolCacheStore(), ['insertIfEpoch']) });
    registerCodingTools(cache);
    const read = counting('x');
    const r = await cache.call('Read', { path: 'a' }, read, opts('1'));
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'store_error' });
    await cache.call('Read', { path: 'a' }, read, opts('2'));
    expect(read.runs).toBe(2);
  });

  it('never serves a stale value after a write whose invalidation failed: reads bypass until it is retried successfully', async () => {
    const inner = new MemoryToolCacheStore();
    const store = new FlakyStore(inner, ['invalidate']);
    store.failing = false;
    const cache = new ToolCache({ store });
    registerCodingTools(cache);
    const files = new Map([['a', 'old']]);
    const read = async ({ path }: { path: string }) => files.get(path)!;
    await cache.call('Read', { path: 'a' }, read, opts('1'));
    expect((await cache.call('Read', { path: 'a' }, read, opts('2'))).cache.type).toBe('hit');

    store.failing = true;
    const w = await cache.call('Edit', { path: 'a' }, async () => {
      files.set('a', 'new');
      return 'ok';
    }, opts('w'));
    expect(w.content).toBe('ok'); // the write itself succeeded
    const during = await cache.call('Read', { path: 'a' }, read, opts('3'));
    expect(during).toMatchObject({ content: 'new', cache: { type: 'bypass', reason: 'degraded' } });
    expect(await inner.get(toolCacheKey('Read', { path: 'a' }, 's'))).toBeDefined(); // the stale entry is still there...

    store.failing = false;
    const after = await cache.call('Read', { path: 'a' }, read, opts('4'));
    expect(after).toMatchObject({ content: 'new', cache: { type: 'miss', inserted: true } }); // ...until the retry evicted it
    expect((await cache.call('Read', { path: 'a' }, read, opts('5'))).content).toBe('new\n[cached]');
  });
});

/** Distributed singleflight over one shared memory store: what two replicas sharing Redis see. */
class SharedFlight implements FlightCoordinator {
  readonly #owners = new Map<string, string>();
  readonly #waiters = new Map<string, Array<() => void>>();
  acquired = 0;
  constructor(readonly store: ToolCacheStore) {}
  async acquire(key: string, token: string): Promise<boolean> {
    if (this.#owners.has(key)) return false;
    this.#owners.set(key, token);
    this.acquired++;
    return true;
  }
  async release(key: string, token: string): Promise<void> {
    if (this.#owners.get(key) !== token) return;
    this.#owners.delete(key);
    for (const w of this.#waiters.get(key) ?? []) w();
    this.#waiters.delete(key);
  }
  async wait(key: string, timeoutMs: number): Promise<StoredEntry | undefined> {
    if (this.#owners.has(key)) {
      await new Promise<void>((resolve) => {
        const list = this.#waiters.get(key) ?? [];
        list.push(resolve);
        this.#waiters.set(key, list);
        setTimeout(resolve, timeoutMs).unref();
      });
    }
    return this.store.get(key);
  }
}

class SharedStore extends MemoryToolCacheStore {
  readonly flight: SharedFlight = new SharedFlight(this);
}

describe('ToolCache with a distributed flight (two replicas, one store)', () => {
  it('runs a call once across replicas: the second replica waits and receives the first one’s result', async () => {
    const store = new SharedStore();
    const [a, b] = [new ToolCache({ store }), new ToolCache({ store })];
    registerCodingTools(a);
    registerCodingTools(b);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const read = async () => {
      runs++;
      await gate;
      return 'content';
    };
    const ra = a.call('Read', { path: 'x' }, read, opts('a1'));
    await new Promise((r) => setTimeout(r, 0));
    const rb = b.call('Read', { path: 'x' }, read, opts('b1'));
    await new Promise((r) => setTimeout(r, 0));
    release();
    expect((await ra).cache.type).toBe('miss');
    expect(await rb).toMatchObject({ callId: 'b1', content: 'content', cache: { type: 'shared' } });
    expect(runs).toBe(1);
    expect(store.flight.acquired).toBe(1);
  });

  it('runs the call itself when the other replica’s result was refused by an invalidation', async () => {
    const store = new SharedStore();
    const [a, b] = [new ToolCache({ store }), new ToolCache({ store })];
    registerCodingTools(a);
    registerCodingTools(b);
    const files = new Map([['x', 'old']]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async ({ path }: { path: string }) => {
      const v = files.get(path)!;
      await gate;
      return v;
    };
    const ra = a.call('Read', { path: 'x' }, slow, opts('a1'));
    await new Promise((r) => setTimeout(r, 0));
    await b.call('Edit', { path: 'x' }, async () => {
      files.set('x', 'new');
      return 'ok';
    }, opts('bw'));
    const rb = b.call('Read', { path: 'x' }, async ({ path }: { path: string }) => files.get(path)!, opts('b1'));
    await new Promise((r) => setTimeout(r, 0));
    release();
    expect(await ra).toMatchObject({ content: 'old', cache: { notInserted: 'stale_epoch' } });
    expect(await rb).toMatchObject({ content: 'new', cache: { type: 'miss', inserted: true } });
  });
});

describe('ToolCache.runToolUses', () => {
  it('answers a wave of tool_use blocks in order, through the cache, with the current ids', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const files = new Map([
      ['a.ts', 'A'],
      ['b.ts', 'B'],
    ]);
    const handlers = {
      Read: async ({ path }: { path: string }) => files.get(path) ?? { content: `ENOENT ${path}`, isError: true },
      Edit: async ({ path }: { path: string }) => {
        if (!files.has(path)) throw new Error(`no such file ${path}`);
        return 'edited';
      },
    };
    const seen: string[] = [];
    const wave1 = await cache.runToolUses(
      [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { path: 'zz.ts' } },
        { type: 'tool_use', id: 'toolu_3', name: 'Edit', input: { path: 'nope.ts' } },
        { type: 'tool_use', id: 'toolu_4', name: 'Lint', input: {} },
      ],
      handlers,
      { scope: 's', onResult: (r) => seen.push(`${r.callId}:${r.cache.type}`) },
    );
    expect(wave1).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'A' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'ENOENT zz.ts', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_3', content: 'Error: no such file nope.ts', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_4', content: 'Error: no handler for tool "Lint"', is_error: true },
    ]);
    expect(seen.sort()).toEqual(['toolu_1:miss', 'toolu_2:miss']);

    cache.advanceTurn();
    const wave2 = await cache.runToolUses([{ type: 'tool_use', id: 'toolu_9', name: 'Read', input: { path: 'a.ts' } }], handlers, { scope: 's' });
    expect(wave2).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'A\n[cached]' }]);
  });
});

describe('ToolCache.stats', () => {
  it('is a plain snapshot and prints as a table', async () => {
    const cache = new ToolCache({ now: fakeClock().now });
    registerCodingTools(cache);
    await cache.call('Read', { path: 'a' }, async () => ({ content: 'A', durationMs: 340 }), opts('1'));
    await cache.call('Read', { path: 'a' }, async () => 'A', opts('2'));
    await cache.call('Edit', { path: 'a', n: fileTag('a') }, async () => 'ok', opts('3'));
    const s = cache.stats();
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(cache.formatStats()).toMatchInlineSnapshot(`
      "tool     hits  misses  shared  bypassed  stale drops  evict write  evict expired  evict capacity  evict corrupt  writes  failed writes  store errors  hit rate  time saved
      Edit        0       0       0         1            0            0              0               0              0       1              0             0         -        0 ms
      Read        1       1       0         0            0            1              0               0              0       0              0             0     50.0%      340 ms
      (total)     1       1       0         1            0            1              0               0              0       1              0             0     50.0%      340 ms"
    `);
  });
});

describe('ToolCache.runToolUses typing', () => {
  it('accepts the content of an SDK Message as it comes', async () => {
    const cache = new ToolCache();
    const content: import('@anthropic-ai/sdk/resources/messages/messages').ContentBlock[] = [
      { type: 'text', text: 'hi', citations: null },
    ];
    expect(await cache.runToolUses(content, {}, { scope: 's' })).toEqual([]);
  });
});

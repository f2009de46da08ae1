/**
 * The read/write race in every order, not a sample. One read R of file `a` (its tool reads the file when it is
 * invoked and answers later), one write W of `a`, and one more read F of `a` that starts at any point (it joins R's
 * run when it can: singleflight). The steps are
 *
 *   R0 read starts (lookup, epoch, tool invoked: it reads the file now) · RR the read's tool answers ·
 *   RS the read's insert reaches the store · W0 write starts · WT the write's tool writes the file ·
 *   WI its invalidation reaches the store · WE the store's answer gets back and the write call resolves
 *
 * and every interleaving of the chains R0 < RR < RS and W0 < WT < WI < WE (35), with F0 in each of the 8 places,
 * is run on two caches ("processes") sharing one store: the memory store (R, W and F each on either cache, with and
 * without an entry of the old content cached before), and Redis with and without the front tier (R and W on
 * different caches; F with R and nothing cached before, or with W and the old content cached before). Gates in a
 * store wrapper hold the insert and the invalidation; a step is taken when the previous one has reached its next
 * gate (or finished).
 *
 * The oracle (the contract): a read that started after a write's call resolved returns the written content; and
 * once everything settled, a fresh read on either cache returns it too (no stale entry survived).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { fileTag } from '../../src/toolcache/policy.js';
import type { StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import type { RedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';
import { openStore, until } from './redis-fixtures/helpers.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';

type Step = 'R0' | 'RR' | 'RS' | 'W0' | 'WT' | 'WI' | 'WE' | 'F0';

/** Every interleaving of two chains, each kept in its order. */
function interleavings(a: readonly Step[], b: readonly Step[]): Step[][] {
  if (a.length === 0) return [[...b]];
  if (b.length === 0) return [[...a]];
  return [...interleavings(a.slice(1), b).map((o) => [a[0]!, ...o]), ...interleavings(a, b.slice(1)).map((o) => [b[0]!, ...o])];
}

const BASE = interleavings(['R0', 'RR', 'RS'], ['W0', 'WT', 'WI', 'WE']);
const WITH_F = BASE.flatMap((o) => Array.from({ length: o.length + 1 }, (_, i) => [...o.slice(0, i), 'F0' as Step, ...o.slice(i)]));

function gate() {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (reach = r));
  return { open, reach, opened, reached };
}

/** The gates of one run: R's insert and W's invalidation (before it reaches the store, and after it answered). */
interface Gates {
  readonly insert: ReturnType<typeof gate>;
  readonly invBefore: ReturnType<typeof gate>;
  readonly invAfter: ReturnType<typeof gate>;
}

/** A store whose insert of R's run and whose invalidation of W's tag wait at the run's gates. */
function gated(inner: ToolCacheStore, current: () => { gates: Gates; path: string } | undefined): ToolCacheStore {
  return {
    epoch: () => inner.epoch(),
    get: (k) => inner.get(k),
    async insertIfEpoch(e: StoredEntry, ep) {
      const run = current();
      if (run !== undefined && String(e.content).includes('#R')) {
        run.gates.insert.reach();
        await run.gates.insert.opened;
      }
      return inner.insertIfEpoch(e, ep);
    },
    async invalidate(tags, writes) {
      const run = current();
      const mine = run !== undefined && tags.includes(fileTag(run.path));
      if (mine) {
        run.gates.invBefore.reach();
        await run.gates.invBefore.opened;
      }
      const out = await inner.invalidate(tags, writes);
      if (mine) {
        run.gates.invAfter.reach();
        await run.gates.invAfter.opened;
      }
      return out;
    },
    delete: (k) => inner.delete(k),
    ...(inner.flight === undefined ? {} : { flight: inner.flight }),
    ...(inner.beginWrite === undefined ? {} : { beginWrite: inner.beginWrite.bind(inner) }),
    ...(inner.endWrite === undefined ? {} : { endWrite: inner.endWrite.bind(inner) }),
  };
}

interface Setup {
  readonly caches: readonly [ToolCache, ToolCache];
  readonly settle: () => Promise<void>;
}

function register(cache: ToolCache): ToolCache {
  cache.register('Read', { cacheable: true, ttl: { seconds: 600 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  return cache;
}

interface Placement {
  readonly r: 0 | 1;
  readonly w: 0 | 1;
  readonly f: 0 | 1;
  readonly prefilled: boolean;
}

const PLACEMENTS: Placement[] = [];
for (const r of [0, 1] as const) for (const f of [0, 1] as const) for (const prefilled of [false, true]) PLACEMENTS.push({ r, w: 0, f, prefilled });

let runs = 0;

/** Runs one order; returns the violations of the oracle. */
async function runOrder(setup: Setup, holder: { run?: { gates: Gates; path: string } }, order: readonly Step[], p: Placement): Promise<string[]> {
  const path = `f${++runs}.ts`;
  const gates: Gates = { insert: gate(), invBefore: gate(), invAfter: gate() };
  holder.run = { gates, path };
  const [A, B] = setup.caches;
  const cacheOf = (i: 0 | 1) => (i === 0 ? A : B);
  let version = 1;
  let tick = 0;
  let writeEnd = Number.POSITIVE_INFINITY;
  const violations: string[] = [];
  const read = (cache: ToolCache, id: string, tool: (a: { path: string }) => Promise<string>) =>
    cache.call('Read', { path }, tool, { scope: 's', callId: id }).then((r: ToolCallResult) => String(unmark(r.content)));
  if (p.prefilled) {
    await read(B, 'pre', async () => `v${version}#P`);
    await setup.settle();
  }

  const rInvoked = gate();
  const rAnswer = gate();
  const wInvoked = gate();
  const wWrite = gate();
  let rStart = 0;
  let fStart = 0;
  let rDone: Promise<string> | undefined;
  let fDone: Promise<string> | undefined;
  let wDone: Promise<unknown> | undefined;
  const settled = <T>(x: Promise<T> | undefined) => x ?? new Promise<never>(() => undefined);

  for (const step of order) {
    switch (step) {
      case 'R0':
        rStart = ++tick;
        rDone = read(cacheOf(p.r), 'R', async () => {
          const seen = version; // read now, answered later: the worst case
          rInvoked.reach();
          await rAnswer.opened;
          return `v${seen}#R`;
        });
        await Promise.race([rInvoked.reached, rDone]);
        break;
      case 'RR':
        rAnswer.open();
        await Promise.race([gates.insert.reached, settled(rDone)]);
        break;
      case 'RS':
        gates.insert.open();
        await settled(rDone);
        break;
      case 'W0':
        wDone = cacheOf(p.w).call(
          'Edit',
          { path },
          async () => {
            wInvoked.reach();
            await wWrite.opened;
            version = 2;
            return 'ok';
          },
          { scope: 's', callId: 'W' },
        );
        await wInvoked.reached;
        break;
      case 'WT':
        wWrite.open();
        await gates.invBefore.reached;
        break;
      case 'WI':
        gates.invBefore.open();
        await gates.invAfter.reached;
        break;
      case 'WE':
        gates.invAfter.open();
        await wDone;
        writeEnd = ++tick;
        break;
      case 'F0':
        fStart = ++tick;
        fDone = read(cacheOf(p.f), 'F', async () => `v${version}#F`);
        // F runs free: give it time to look up, join R's run or run its own; the oracle uses what really happened.
        await Promise.race([fDone, setup.settle()]);
        break;
    }
  }
  const r = await settled(rDone);
  const f = await settled(fDone);
  if (rStart > writeEnd && !r.startsWith('v2')) violations.push(`R started after the write returned and got ${r}`);
  if (fStart > writeEnd && !f.startsWith('v2')) violations.push(`F started after the write returned and got ${f}`);
  await setup.settle();
  for (const i of [0, 1] as const) {
    const after = await read(cacheOf(i), `after${i}`, async () => `v${version}#X`);
    if (!after.startsWith('v2')) violations.push(`a read on cache ${i} after everything settled got ${after}`);
  }
  delete holder.run;
  return violations.map((v) => `${order.join(' ')} (R on ${p.r}, W on ${p.w}, F on ${p.f}${p.prefilled ? ', v1 cached before' : ''}): ${v}`);
}

/** On Redis (real round trips), the two placements where every step crosses processes: R on the reader's cache, W on the other, F on either. */
const REDIS_PLACEMENTS: Placement[] = [
  { r: 1, w: 0, f: 1, prefilled: false },
  { r: 1, w: 0, f: 0, prefilled: true },
];

async function explore(setup: Setup, holder: { run?: { gates: Gates; path: string } }, placements = PLACEMENTS): Promise<string[]> {
  const violations: string[] = [];
  for (const p of placements) for (const order of WITH_F) violations.push(...(await runOrder(setup, holder, order, p)));
  return violations;
}

/** A store that forgets the epoch guard: the orders must catch it (the exploration has teeth). */
class NoEpochGuardStore extends MemoryToolCacheStore {
  override async insertIfEpoch(entry: StoredEntry): Promise<boolean> {
    return super.insertIfEpoch(entry, await this.epoch());
  }
}

const macrotask = () => new Promise<void>((r) => setImmediate(r));

describe('ToolCache: every order of a read, a write and a joining read, on two caches sharing a store', () => {
  const onMemory = (shared: MemoryToolCacheStore) => {
    const holder: { run?: { gates: Gates; path: string } } = {};
    const caches = [0, 1].map(() => register(new ToolCache({ store: gated(shared, () => holder.run) }))) as [ToolCache, ToolCache];
    const settle = async () => {
      for (let i = 0; i < 5; i++) await macrotask();
    };
    return explore({ caches, settle }, holder);
  };

  it('the memory store: no read that starts after the write returned, and no read after all settled, gets the old content', async () => {
    expect(WITH_F).toHaveLength(35 * 8);
    expect(await onMemory(new MemoryToolCacheStore())).toEqual([]);
  });

  it('finds stale reads when the store ignores the epoch (the orders have teeth)', async () => {
    const violations = await onMemory(new NoEpochGuardStore());
    expect(violations.some((v) => v.includes('after everything settled'))).toBe(true);
  });

  describe('Redis', () => {
    let redis: Awaited<ReturnType<typeof sharedRedis>>;
    beforeAll(async () => {
      redis = await sharedRedis();
    });
    afterAll(async () => {
      await redis.release();
    });

    for (const frontTier of [false, true]) {
      it(`two stores on one namespace${frontTier ? ' with front tiers' : ''}: the same, in every order`, { timeout: 300_000 }, async () => {
        const holder: { run?: { gates: Gates; path: string } } = {};
        const ns = uniqueNamespace('orders');
        const stores: RedisToolCacheStore[] = [];
        for (let i = 0; i < 2; i++) {
          const { store } = await openStore(redis.url, ns, {
            ackTimeoutMs: 2000,
            flightPollMs: 10,
            ...(frontTier ? { frontTier: { leaseMs: 1000 } } : {}),
          });
          stores.push(store);
        }
        try {
          if (frontTier) expect(await until(() => stores.every((s) => s.frontTierLeased))).toBe(true);
          const caches = stores.map((s) => register(new ToolCache({ store: gated(s, () => holder.run), flightTimeoutMs: 5000 }))) as [ToolCache, ToolCache];
          const settle = () => new Promise<void>((r) => setTimeout(r, 5));
          expect(await explore({ caches, settle }, holder, REDIS_PLACEMENTS)).toEqual([]);
        } finally {
          for (const s of stores) await s.close();
        }
      });
    }
  });
});

/**
 * The process's copy of a conversation (src/conversation/local-copy.ts): when the store cannot give the state back
 * (down at load, or back with an older revision after a failed save), the process that prepared the previous request
 * renders from the state it rendered last, so the sticky decisions (here an agent's hide) are kept and the request
 * is the one an undisturbed loop sends, byte for byte. Another worker's newer revision always wins, and a save after
 * a failed save never overwrites it. Real stores: a file store, and Redis on a private redis-server stopped, frozen
 * and started again.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type PreparePlan } from '../../src/conversation/prepare.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';
import { ConversationConflictError } from '../../src/errors.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { createRedisConversationStore } from '../../src/toolcache/stores/redis.js';
import { startRedisServer, type RedisServerHandle } from '../toolcache/redis-fixtures/server.js';
import { answering, BASE, requests } from './store-contract.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store whose load or save fails while `fail` says so (a store that times out), the rest passed through. */
class Faulty implements ConversationStore {
  fail: 'load' | 'save' | 'both' | undefined;
  constructor(readonly inner: ConversationStore) {}
  load(id: string): Promise<ConversationRecord | undefined> {
    return this.fail === 'load' || this.fail === 'both' ? Promise.reject(new Error('timed out (test)')) : this.inner.load(id);
  }
  save(record: ConversationRecord, expected: number | null): Promise<void> {
    return this.fail === 'save' || this.fail === 'both' ? Promise.reject(new Error('timed out (test)')) : this.inner.save(record, expected);
  }
  delete(id: string): Promise<void> {
    return this.inner.delete(id);
  }
}

const ALL = requests(1, 9);
/** The agent hides round 1's result at request 2 (sticky: a render from the messages alone brings it back). */
const HIDE = { toolUseId: 'toolu_1_1', force: true } as const;

async function send(store: ConversationStore, k: number, id = 'c'): Promise<{ bytes: string; plan: PreparePlan }> {
  const { params, plan } = await prepare(
    { ...BASE, messages: ALL[k]! as MessageParam[] },
    { conversationId: id, store, now: 1_000_000 + k * 2_000, ...(k === 2 ? { hide: [HIDE] } : {}) },
  );
  return { bytes: JSON.stringify(params), plan };
}

/** What an undisturbed loop sends (a memory store that never fails). */
async function undisturbed(): Promise<string[]> {
  const store = new MemoryConversationStore();
  const out: string[] = [];
  for (let k = 0; k < ALL.length; k++) out.push((await send(store, k)).bytes);
  return out;
}

const hidden = (bytes: string) => bytes.includes('[hidden');

/** The stores the cases run on: a file store, and Redis (a private server, stopped at the end). */
const BACKENDS: Record<string, () => Promise<{ store: ConversationStore; other: () => Promise<ConversationStore>; close(): Promise<void> }>> = {
  file: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-copy-'));
    dirs.push(dir);
    return { store: new FileConversationStore({ dir }), other: async () => new FileConversationStore({ dir }), close: async () => undefined };
  },
  redis: async () => {
    const own = await startRedisServer();
    // These cases inject their faults through Faulty, never through the server: a generous timeout, so a loaded
    // machine's slow answer is not taken for a store that is down (300 ms failed once at load 8-10).
    const open = () => createRedisConversationStore({ url: own.url, namespace: 'copy', commandTimeoutMs: 10_000, maxReconnectDelayMs: 50 });
    const stores: Awaited<ReturnType<typeof open>>[] = [await open()];
    return {
      store: stores[0]!,
      other: async () => {
        const s = await open();
        stores.push(s);
        return s;
      },
      close: async () => {
        for (const s of stores) await s.close();
        await own.destroy();
      },
    };
  },
};

describe("the process's copy of a conversation", () => {
  for (const [name, make] of Object.entries(BACKENDS)) {
    it(`${name}: the store fails at load for two requests, then answers with the revision it held: every request sends the undisturbed bytes`, async () => {
      const want = await undisturbed();
      const backend = await make();
      try {
        const store = new Faulty(backend.store);
        const plans: PreparePlan[] = [];
        for (let k = 0; k < ALL.length; k++) {
          store.fail = k === 5 || k === 6 ? 'both' : undefined;
          const { bytes, plan } = await send(store, k);
          plans.push(plan);
          expect(bytes, `request ${k}`).toBe(want[k]);
        }
        expect(hidden(want[5]!)).toBe(true);
        expect(plans.map((p) => p.localState?.reason)).toEqual([
          ...Array(5).fill(undefined),
          'store_unavailable',
          'store_unavailable',
          'unsaved',
          undefined,
          undefined,
        ]);
        expect(plans.map((p) => p.revision)).toEqual([1, 2, 3, 4, 5, null, null, 6, 7, 8]);
        expect(plans[5]!.resync).toBeUndefined();
        expect(plans[5]!.unsaved).toMatch(/timed out/);
        expect((await backend.store.load('c'))!.revision).toBe(8);
      } finally {
        await backend.close();
      }
    });

    it(`${name}: a save fails, the next load answers with the older revision: rendered from the copy and saved over it`, async () => {
      const want = await undisturbed();
      const backend = await make();
      try {
        const store = new Faulty(backend.store);
        for (let k = 0; k < ALL.length; k++) {
          store.fail = k === 4 ? 'save' : undefined;
          const { bytes, plan } = await send(store, k);
          expect(bytes, `request ${k}`).toBe(want[k]);
          if (k === 4) expect([plan.revision, plan.unsaved !== undefined, plan.localState]).toEqual([null, true, undefined]);
          if (k === 5) expect([plan.revision, plan.localState?.reason]).toEqual([5, 'unsaved']);
        }
      } finally {
        await backend.close();
      }
    });

    it(`${name}: two workers: another worker's newer revision wins over the copy, and a save after a failed save never overwrites it`, async () => {
      const backend = await make();
      try {
        const a = new Faulty(backend.store);
        const b = await backend.other();
        for (let k = 0; k <= 3; k++) expect((await send(a, k)).plan.revision).toBe(k + 1);
        // Worker A's save fails; worker B (no copy) prepares the next request from the store's revision 4 and saves 5.
        a.fail = 'save';
        expect((await send(a, 4)).plan.revision).toBeNull();
        a.fail = undefined;
        const onB = (await send(b, 5)).plan;
        expect([onB.revision, onB.localState]).toEqual([5, undefined]);
        // A again: the store's revision 5 is not the state its copy started from: the store's answer, saved as 6.
        const back = (await send(a, 6)).plan;
        expect([back.revision, back.localState]).toEqual([6, undefined]);
        expect((await backend.store.load('c'))!.revision).toBe(6);

        // A's save fails again; B saves between A's next load and save: A's save is refused (a conflict), not written over B's.
        a.fail = 'save';
        expect((await send(a, 7)).plan.revision).toBeNull();
        a.fail = undefined;
        const racing = new Faulty(a.inner);
        const load = racing.load.bind(racing);
        racing.load = async (id) => {
          const loaded = await load(id);
          await send(b, 7);
          return loaded;
        };
        // The copy is per store object: the racing worker is A's store again.
        await expect(send(Object.assign(a, { load: racing.load }), 8)).rejects.toBeInstanceOf(ConversationConflictError);
        expect((await backend.store.load('c'))!.revision).toBe(7);
      } finally {
        await backend.close();
      }
    });
    // One long tool loop; the agent hides a result; the caller deletes the conversation before request 34. That request is a lost state: the hidden result is sent again, so the bytes change there (no decision
    // of the copy comes back). Without what this process sent (its copy's ledger), no point of that render reaches the
    // entries the provider still holds around that block, and it re-writes them (the judge's loop busts after a delete).
    const CASES = {
      // The entries written before the hide have expired: the latest request's ledger reads the newest entry before it.
      'written before the hide expired': { round: 10, hideAt: 12, gap: 270_000, again: false },
      // They are warm (requests 5 s apart): the request before the hide wrote past the block the lost state sends again.
      'written before the hide still warm': { round: 10, hideAt: 12, gap: 0, again: false },
      // The agent hides round 33's result as it comes (request 33) and again at request 35, after the delete: its bytes
      // are the ones request 33 wrote again.
      'the hide made again after the delete': { round: 33, hideAt: 33, gap: 0, again: true },
    };
    for (const [label, { round, hideAt, gap, again }] of Object.entries(CASES)) {
      it(`${name}: the record deleted mid-loop (${label}): the messages alone, and the provider's entries are read, not re-written`, async () => {
        const loop = requests(1, 40, 400);
        const backend = await make();
        try {
          const store = backend.store;
          const sim = new CacheSimulator();
          const busts: string[] = [];
          for (let k = 0; k < loop.length; k++) {
            if (k === 34) await store.delete('d');
            const at = 1_000_000 + k * 5_000 + (k > hideAt ? gap : 0);
            const hide = k === hideAt || (again && k === 35);
            const { params, plan } = await prepare(
              { ...BASE, messages: loop[k]! as MessageParam[] },
              { conversationId: 'd', store, now: at, ...(hide ? { hide: [{ toolUseId: `toolu_1_${round}`, force: true }] } : {}) },
            );
            const r = sim.send(params as never, at);
            if (r.explain?.bust) busts.push(`request ${k}: missed ${r.explain.missedPosition}`);
            if (k === 33) expect(hidden(JSON.stringify(params))).toBe(true);
            if (k === 34) {
              expect(plan.resync?.reason).toBe('no_stored_state');
              expect(plan.localState).toBeUndefined();
              expect(hidden(JSON.stringify(params))).toBe(false);
            }
            if (k === 35) expect(hidden(JSON.stringify(params))).toBe(again);
            if (k >= 34 && k <= 37) expect(r.usage!.cache_read_input_tokens, `request ${k}`).toBe(plan.usage.cache_read_input_tokens);
          }
          expect(busts).toEqual([]);
        } finally {
          await backend.close();
        }
      });
    }

    it(`${name}: the record deleted, then the loop regenerates the turn (cut back to its user message) and goes on: no request the API refuses`, async () => {
      // A model that binds thinking: a response's thinking must come back under the prefix it was produced under. The
      // response that stood at the cut answered the request before the delete (with the agent's hide), not the cut
      // request rendered from the messages alone (the API's 400 "bound to a different conversation" on every request).
      const loop = requests(2, 6, 400);
      const model = { ...BASE, model: 'claude-opus-5-5' };
      const backend = await make();
      try {
        const store = backend.store;
        const sim = new CacheSimulator();
        const refused: string[] = [];
        const send = async (k: number, messages: MessageParam[]) => {
          const at = 1_000_000 + k * 5_000;
          const { params } = await prepare(
            { ...model, messages },
            { conversationId: 'g', store, now: at, ...(k === 3 ? { hide: [{ toolUseId: 'toolu_1_2', force: true }] } : {}) },
          );
          const r = sim.send(params as never, at);
          if (r.rejected) refused.push(`request ${k}: ${r.rejected.message.slice(0, 120)}`);
        };
        for (let k = 0; k < loop.length; k++) {
          if (k === 10) {
            await store.delete('g');
            // Turn 2 started at request 7 (its messages end with the turn's user message).
            await send(k, loop[7]! as MessageParam[]);
          }
          await send(k, loop[k]! as MessageParam[]);
        }
        expect(refused).toEqual([]);
      } finally {
        await backend.close();
      }
    });

    it(`${name}: deleted, then another conversation under the same id: the copy's ledger claims no entry of the other bytes`, async () => {
      const backend = await make();
      try {
        const store = backend.store;
        const sim = new CacheSimulator();
        const before = requests(1, 30, 400);
        for (let k = 0; k < 25; k++)
          sim.send(
            (await prepare({ ...BASE, messages: before[k]! as MessageParam[] }, { conversationId: 'f', store, now: 1_000_000 + k * 5_000 })).params as never,
            1_000_000 + k * 5_000,
          );
        await store.delete('f');
        // The same paths (one long tool loop), other results: only the envelope's entries are the provider's.
        const other = requests(1, 30, 700);
        const at = 1_000_000 + 25 * 5_000;
        const { params, plan } = await prepare({ ...BASE, messages: other[25]! as MessageParam[] }, { conversationId: 'f', store, now: at });
        const r = sim.send(params as never, at);
        expect(plan.resync?.reason).toBe('no_stored_state');
        expect(r.usage!.cache_read_input_tokens).toBe(plan.usage.cache_read_input_tokens);
        expect(r.explain?.bust).toBe(false);
      } finally {
        await backend.close();
      }
    });

    it(`${name}: the first save fails, then the caller deletes the conversation: the copy does not revive it`, async () => {
      const backend = await make();
      try {
        const store = new Faulty(backend.store);
        store.fail = 'save';
        const first = await send(store, 2, 'e');
        expect([first.plan.revision, hidden(first.bytes)]).toEqual([null, true]);
        store.fail = undefined;
        // Nothing was stored: the delete is the caller's reset (it cannot be told from a first save that failed).
        await store.delete('e');
        const next = await prepare({ ...BASE, messages: ALL[3]! as MessageParam[] }, { conversationId: 'e', store, now: 1_000_000 + 3 * 2_000 });
        expect(next.plan.localState).toBeUndefined();
        expect(next.plan.resync?.reason).toBe('no_stored_state');
        expect(hidden(JSON.stringify(next.params))).toBe(false);
        expect(next.plan.revision).toBe(1);
      } finally {
        await backend.close();
      }
    });
  }

  it('redis: the server stopped for two requests and started again empty: the copy while it is down, then the store answers (nothing: a lost state)', async () => {
    const want = await undisturbed();
    const own: RedisServerHandle = await startRedisServer();
    const store = await createRedisConversationStore({ url: own.url, namespace: 'copy', commandTimeoutMs: 300, maxReconnectDelayMs: 50 });
    try {
      const plans: PreparePlan[] = [];
      for (let k = 0; k < ALL.length; k++) {
        if (k === 5) await own.stop();
        if (k === 7) {
          await own.start();
          await answering(store);
        }
        const { bytes, plan } = await send(store, k);
        plans.push(plan);
        if (k < 7) expect(bytes, `request ${k}`).toBe(want[k]);
      }
      expect(plans.map((p) => p.localState?.reason ?? p.resync?.reason)).toEqual([
        ...Array(5).fill(undefined),
        'store_unavailable',
        'store_unavailable',
        'no_stored_state',
        undefined,
        undefined,
      ]);
      expect(plans[5]!.localState?.reason).toBe('store_unavailable');
    } finally {
      await store.close();
      await own.destroy();
    }
  });

  it('redis: the server frozen for two requests (they time out), then it answers with the record it held: no request differs', async () => {
    const want = await undisturbed();
    const own: RedisServerHandle = await startRedisServer();
    const store = await createRedisConversationStore({ url: own.url, namespace: 'copy', commandTimeoutMs: 300, maxReconnectDelayMs: 50 });
    try {
      for (let k = 0; k < ALL.length; k++) {
        if (k === 5) own.freeze();
        if (k === 7) {
          own.thaw();
          await answering(store);
        }
        const { bytes, plan } = await send(store, k);
        expect(bytes, `request ${k}`).toBe(want[k]);
        if (k === 7) expect([plan.localState?.reason, plan.revision]).toEqual(['unsaved', 6]);
      }
    } finally {
      own.thaw();
      await store.close();
      await own.destroy();
    }
  });

  it('the memory store keeps no copy (it is the process own): a delete is a lost state, as before', async () => {
    const store = new MemoryConversationStore();
    for (let k = 0; k < 4; k++) await send(store, k);
    await store.delete('c');
    expect((await send(store, 4)).plan.resync?.reason).toBe('no_stored_state');
  });
});

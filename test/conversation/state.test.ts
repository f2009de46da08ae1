/** Versioned state, the memory store's bounds, and stores that fail. */
import { describe, expect, it } from 'vitest';
import { ConversationConflictError, ConversationStateError, ConversationStoreError } from '../../src/errors.js';
import type { ConversationRecord } from '../../src/conversation/types.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { exportState, importState, STATE_VERSION } from '../../src/conversation/state.js';
import { RedisConversationStore } from '../../src/conversation/redis-store.js';
import { BASE, requests } from './store-contract.js';

async function exported(id: string): Promise<string> {
  const store = new MemoryConversationStore();
  for (const m of requests(1, 2)) await prepare({ ...BASE, messages: m }, { conversationId: id, store, now: 1 });
  return exportState((await store.load(id))!);
}

describe('exportState / importState', () => {
  it('round-trips a conversation', async () => {
    const text = await exported('rt');
    const record = importState(text, 'rt');
    expect(record.revision).toBe(3);
    expect(exportState(record)).toBe(text);
  });

  it('a newer version is a typed error naming the conversation and the fix', async () => {
    const doc = JSON.parse(await exported('nv'));
    doc.version = STATE_VERSION + 1;
    const err = (() => {
      try {
        importState(JSON.stringify(doc), 'nv');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConversationStateError);
    expect(err).toMatchObject({ reason: 'newer_version', conversationId: 'nv', code: 'conversation_state' });
    expect(String(err)).toMatch(/conversation "nv".*upgrade cachepoint/);
  });

  it('corrupt text is a typed error, never a silent reset', async () => {
    const good = await exported('cx');
    for (const bad of [
      '',
      '{',
      'null',
      '{"format":"other"}',
      good.replace('"turns":[', '"turns":7,"x":['),
      JSON.stringify({ ...JSON.parse(good), version: 'one' }),
    ]) {
      expect(() => importState(bad, 'cx'), bad.slice(0, 30)).toThrow(ConversationStateError);
    }
    expect(() => importState(good, 'someone-else')).toThrow(/belongs to conversation "cx"/);
  });
});

describe('exportState / importState: the shadow of a cut (version 2)', () => {
  /** A conversation whose latest request cut its history back (a rewind): the record keeps a shadow of the cut stretch. */
  async function cutRecord(id: string) {
    const store = new MemoryConversationStore();
    const all = requests(1, 6, 6000);
    for (const m of all) await prepare({ ...BASE, messages: m }, { conversationId: id, store, now: 1 });
    await prepare({ ...BASE, messages: all[0]! }, { conversationId: id, store, now: 2 });
    return (await store.load(id))!;
  }

  it('a record with a cut shadow is written as version 2 and round-trips; one without stays version 1', async () => {
    const record = await cutRecord('cut');
    expect(record.cut?.entries.length).toBeGreaterThan(0);
    const text = exportState(record);
    expect(JSON.parse(text).version).toBe(2);
    expect(exportState(importState(text, 'cut'))).toBe(text);
    expect(importState(text, 'cut').cut).toEqual(record.cut);
    expect(JSON.parse(await exported('v1')).version).toBe(1);
    expect(STATE_VERSION).toBe(2);
  });

  it('a version 1 document (an older cachepoint wrote it) is still read', async () => {
    const doc = JSON.parse(await exported('old'));
    doc.version = 1;
    expect(importState(JSON.stringify(doc), 'old').revision).toBe(3);
  });

  it('a damaged shadow, or a shadow in a version 1 document, is a typed error naming the conversation', async () => {
    const doc = JSON.parse(exportState(await cutRecord('bad')));
    const damaged = [
      { ...doc, record: { ...doc.record, cut: { ...doc.record.cut, entries: [{ path: 'x', index: 'one' }] } } },
      { ...doc, record: { ...doc.record, cut: { ...doc.record.cut, mark: null } } },
      { ...doc, record: { ...doc.record, cut: 7 } },
      { ...doc, version: 1 },
    ];
    for (const bad of damaged) {
      expect(() => importState(JSON.stringify(bad), 'bad')).toThrow(ConversationStateError);
      expect(() => importState(JSON.stringify(bad), 'bad')).toThrow(/conversation "bad".*cut shadow/);
    }
  });
});

describe('the message a cut removed (cutMessage)', () => {
  it('round-trips, and a damaged one is a typed error naming the conversation', async () => {
    const store = new MemoryConversationStore();
    const all = requests(1, 6, 6000);
    for (const m of all) await prepare({ ...BASE, messages: m }, { conversationId: 'cm', store, now: 1 });
    await prepare({ ...BASE, messages: all[0]! }, { conversationId: 'cm', store, now: 2 });
    const record = (await store.load('cm'))!;
    expect(record.cutMessage).toEqual({ at: all[0]!.length, digest: expect.any(String) });
    const text = exportState(record);
    expect(importState(text, 'cm').cutMessage).toEqual(record.cutMessage);
    const doc = JSON.parse(text);
    for (const cutMessage of [{ at: -1, digest: 'x' }, { at: 1 }, 'x']) {
      const bad = JSON.stringify({ ...doc, record: { ...doc.record, cutMessage } });
      expect(() => importState(bad, 'cm')).toThrow(ConversationStateError);
      expect(() => importState(bad, 'cm')).toThrow(/conversation "cm".*cut message/);
    }
    // Extended past the cut: forgotten.
    await prepare({ ...BASE, messages: all[1]! }, { conversationId: 'cm', store, now: 3 });
    expect((await store.load('cm'))!.cutMessage).toBeUndefined();
  });
});

describe('MemoryConversationStore bounds', () => {
  it('drops the least recently used beyond maxConversations, and idle ones after idleMs', async () => {
    let now = 0;
    const evicted: string[] = [];
    const store = new MemoryConversationStore({ maxConversations: 2, idleMs: 1000, now: () => now, onEvict: (id, why) => evicted.push(`${id}:${why}`) });
    const [m] = requests(1, 1);
    await prepare({ ...BASE, messages: m! }, { conversationId: 'a', store, now: 0 });
    await prepare({ ...BASE, messages: m! }, { conversationId: 'b', store, now: 0 });
    await store.load('a'); // a is now the most recent
    await prepare({ ...BASE, messages: m! }, { conversationId: 'c', store, now: 0 });
    expect(evicted).toEqual(['b:lru']);
    now = 999;
    expect(await store.load('a')).toBeDefined();
    now = 2000;
    expect(await store.load('c')).toBeUndefined();
    expect(evicted).toEqual(['b:lru', 'c:idle']);
    expect(() => new MemoryConversationStore({ maxConversations: 0 })).toThrow(/maxConversations/);
  });

  it('judges a save by the load just before it (one clock read per request), and any other save by the clock', () => {
    let now = 0;
    let reads = 0;
    const evicted: string[] = [];
    const store = new MemoryConversationStore({
      idleMs: 1000,
      now: () => {
        reads++;
        return now;
      },
      onEvict: (id, why) => evicted.push(`${id}:${why}`),
    });
    const record = (id: string, revision: number) => ({ id, revision }) as unknown as ConversationRecord;
    store.saveSync(record('a', 1), null);
    store.saveSync(record('b', 1), null);
    // prepare's pair: the load reads the clock, the save of what it loaded does not, however late it comes.
    now = 500;
    reads = 0;
    const a = store.loadSync('a')!;
    now = 1600;
    store.saveSync({ ...a, revision: 2 }, 1);
    expect(reads).toBe(1);
    expect(evicted).toEqual([]);
    // The pair counts from its load: idle since 500 (b since 0).
    now = 1400;
    expect(store.loadSync('a')?.revision).toBe(2);
    // Another conversation loaded in between: the save is judged by the clock again (b idle since 0: dropped).
    const b = store.loadSync('b');
    expect(b).toBeUndefined();
    expect(evicted).toEqual(['b:idle']);
    reads = 0;
    now = 2500;
    expect(() => store.saveSync({ ...a, revision: 3 }, 2)).toThrow(ConversationConflictError);
    expect(reads).toBe(1);
    expect(evicted).toEqual(['b:idle', 'a:idle']);
    // The load's entry gone meanwhile (deleted): a save is a conflict, as before.
    store.saveSync({ ...a, revision: 1 }, null);
    const again = store.loadSync('a')!;
    void store.delete('a');
    expect(() => store.saveSync({ ...again, revision: 2 }, 1)).toThrow(ConversationConflictError);
  });
});

describe('a Redis store that is down', () => {
  const down = {
    get: async () => Promise.reject(new Error('The client is closed')),
    del: async () => Promise.reject(new Error('The client is closed')),
    evalSha: async () => Promise.reject(new Error('The client is closed')),
    eval: async () => Promise.reject(new Error('The client is closed')),
  };
  it('surfaces typed store errors, and prepare falls back to a valid request flagged in the plan', async () => {
    const store = new RedisConversationStore({ client: down });
    await expect(store.load('x')).rejects.toThrow(ConversationStoreError);
    const { params, plan } = await prepare({ ...BASE, messages: requests(1, 2)[1]! }, { conversationId: 'x', store, now: 1 });
    expect(plan.resync?.reason).toBe('store_unavailable');
    expect(params.messages.length).toBe(3);
    expect(JSON.stringify(params).split('cache_control').length - 1).toBeLessThanOrEqual(4);
  });
});

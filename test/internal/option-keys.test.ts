/**
 * A misspelled option of a door a new user writes by hand is refused with the
 * nearest known key, never a silent default (a `tial` that drops the volatile
 * tail, a `diagnostic` that never asks for diagnostics, a `maxEntry` that keeps
 * the default bound). And `Session` without `instructions` says so, instead of
 * a TypeError from inside.
 */
import { describe, expect, it } from 'vitest';
import {
  conversationStats,
  InvalidOptionError,
  MemoryConversationStore,
  prepare,
  recallFromConversation,
  recordUsage,
  Session,
  ToolCache,
} from '../../src/index.js';
import { cachepointMiddleware } from '../../src/integrations/ai-sdk/index.js';
import { FileConversationStore } from '../../src/node.js';
import { createRedisConversationStore, createRedisToolCacheStore, RedisConversationStore, RedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { editDistance, nearestKey, refuseUnknownKeys } from '../../src/internal/option-keys.js';

const params = { model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user' as const, content: 'Hi' }] };

/** Runs `f` and returns the InvalidOptionError it threw (fails when it threw nothing or something else). */
async function refused(f: () => unknown): Promise<InvalidOptionError> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidOptionError);
    return e as InvalidOptionError;
  }
  throw new Error('expected an InvalidOptionError, nothing was thrown');
}

describe('refuseUnknownKeys', () => {
  it('names the key, the nearest known one and the accepted keys', () => {
    expect(() => refuseUnknownKeys({ tial: 'x' }, ['conversationId', 'tail'], 'options.')).toThrow(
      'options.tial: unknown option (did you mean options.tail?); accepted: conversationId, tail',
    );
    expect(() => refuseUnknownKeys({ zzz: 1 }, ['tail'])).toThrow(/^zzz: unknown option; accepted: tail$/);
    expect(() => refuseUnknownKeys({ tail: 1, conversationId: 'c' }, ['conversationId', 'tail'])).not.toThrow();
    expect(() => refuseUnknownKeys(undefined, ['tail'])).not.toThrow();
  });
  it('edit distance is Levenshtein, capped at 3', () => {
    expect(editDistance('tail', 'tial')).toBe(2);
    expect(editDistance('policy', 'polcy')).toBe(1);
    expect(editDistance('a', 'abcdef')).toBe(3);
    expect(nearestKey('MaxEntry', ['maxEntries', 'now'])).toBe('maxEntries');
  });
});

describe('the doors refuse misspelled options', () => {
  it('prepare: options and hide stay as they were, a typo is refused before anything is saved', async () => {
    const store = new MemoryConversationStore();
    const e = await refused(() => prepare(params, { conversationId: 'c', store, tial: 'live view' } as never));
    expect(e.option).toBe('tial');
    expect(e.message).toContain('did you mean tail?');
    expect((await refused(() => prepare(params, { conversationId: 'c', store, diagnostic: true } as never))).message).toContain('did you mean diagnostics?');
    expect(await store.load('c')).toBeUndefined();
    const ok = await prepare(params, {
      conversationId: 'c',
      store,
      tail: 'live view',
      diagnostics: false,
      onStoreError: 'throw',
      now: 1,
      hide: [],
      render: {},
    });
    expect(ok.plan.revision).toBe(1);
  });
  it('recordUsage, conversationStats and recallFromConversation: the conversation reference', async () => {
    const usage = { input_tokens: 1, output_tokens: 1 };
    expect((await refused(() => recordUsage(usage, { conversationid: 'c' } as never))).message).toContain('did you mean conversationId?');
    expect((await refused(() => conversationStats({ conversationId: 'c', stor: undefined } as never))).message).toContain('did you mean store?');
    expect((await refused(() => recallFromConversation('turns/1', { conversationId: 'c', nw: 1 } as never))).message).toContain('did you mean now?');
    expect((await refused(() => recordUsage(usage, {} as never))).option).toBe('conversationId');
  });
  it('Session: a typo, and a missing model or instructions, name the option', async () => {
    expect((await refused(() => new Session({ model: 'claude-sonnet-4-6', instructions: [], handler: {} } as never))).message).toContain(
      'did you mean handlers?',
    );
    const missing = await refused(() => new Session({ model: 'claude-sonnet-4-6', instruction: ['Be terse.'] } as never));
    expect(missing.message).toContain('did you mean instructions?');
    expect((await refused(() => new Session({ model: 'claude-sonnet-4-6' } as never))).option).toBe('instructions');
    expect((await refused(() => new Session({ instructions: [] } as never))).option).toBe('model');
  });
  it('ToolCache and MemoryConversationStore', async () => {
    expect((await refused(() => new ToolCache({ maxEntry: 4 } as never))).message).toContain('did you mean maxEntries?');
    expect((await refused(() => new MemoryConversationStore({ maxConversation: 3 } as never))).message).toContain('did you mean maxConversations?');
  });
  it("the Redis and file stores, before connecting: a misspelled namespace would share another deployment's keys", async () => {
    expect((await refused(() => createRedisToolCacheStore({ url: 'redis://127.0.0.1:1', namespce: 'prod' } as never))).message).toContain(
      'did you mean namespace?',
    );
    expect((await refused(() => createRedisConversationStore({ namespace: 'prod', idleMS: 5 } as never))).message).toContain('did you mean idleMs?');
    const client = { get: async () => null, del: async () => 0, evalSha: async () => null, eval: async () => null };
    expect((await refused(() => new RedisConversationStore({ client, namespce: 'x' } as never))).message).toContain('did you mean namespace?');
    expect((await refused(() => new RedisToolCacheStore({ client: client as never, frontTeir: true } as never))).message).toContain('did you mean frontTier?');
    expect((await refused(() => new FileConversationStore({ dir: '/tmp/x', lockTimeout: 5 } as never))).message).toContain('did you mean lockTimeoutMs?');
  });

  it('cachepointMiddleware', async () => {
    expect((await refused(() => cachepointMiddleware({ conversationID: 'c' } as never))).message).toContain('did you mean conversationId?');
  });
});

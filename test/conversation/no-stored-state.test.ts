/**
 * A request whose conversation the store does not have while its messages carry history is mapped from the
 * messages alone: the sticky decisions, the sent tails and the cache ledger of the earlier requests are gone. The
 * plan says so (`resync.reason: 'no_stored_state'`), whatever the model, as it does for a store that is down. The
 * memory store's idle expiry is one such path: a save judged by its load (the store reads the clock once per
 * request) is dropped by the next load once `idleMs` has passed since that load, even if the save came later.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { BASE, requests } from './store-contract.js';

describe('no stored state while the messages carry history: the plan says so', () => {
  it('a new conversation (one user message) is no resync; the memory store expired it: no_stored_state', async () => {
    const clock = { t: 1_000_000 };
    const store = new MemoryConversationStore({ idleMs: 60_000, now: () => clock.t });
    const all = requests(1, 3);
    const first = await prepare({ ...BASE, messages: all[0]! }, { conversationId: 'c', store, now: clock.t });
    expect(first.plan.resync).toBeUndefined();
    clock.t += 1_000;
    expect((await prepare({ ...BASE, messages: all[1]! }, { conversationId: 'c', store, now: clock.t })).plan.resync).toBeUndefined();
    // The next load comes idleMs after the previous one: the state that request saved is dropped.
    clock.t += 60_000;
    const lost = await prepare({ ...BASE, messages: all[2]! }, { conversationId: 'c', store, now: clock.t });
    expect(lost.plan.resync?.reason).toBe('no_stored_state');
    expect(lost.plan.resync?.detail).toMatch(/no state for this conversation/);
    // Stored again: the next request extends it.
    clock.t += 1_000;
    expect((await prepare({ ...BASE, messages: all[3]! }, { conversationId: 'c', store, now: clock.t })).plan.resync).toBeUndefined();
  });

  it('deleted, or never stored here (a new process): no_stored_state; a store that is down keeps its own reason', async () => {
    const store = new MemoryConversationStore();
    const all = requests(1, 2);
    await prepare({ ...BASE, messages: all[0]! }, { conversationId: 'd', store, now: 1 });
    await store.delete('d');
    expect((await prepare({ ...BASE, messages: all[1]! }, { conversationId: 'd', store, now: 2 })).plan.resync?.reason).toBe('no_stored_state');
    expect((await prepare({ ...BASE, messages: all[2]! }, { conversationId: 'elsewhere', store, now: 3 })).plan.resync?.reason).toBe('no_stored_state');
    const down = {
      load: () => Promise.reject(new Error('ECONNREFUSED')),
      save: () => Promise.reject(new Error('ECONNREFUSED')),
      delete: async () => undefined,
    };
    expect((await prepare({ ...BASE, messages: all[2]! }, { conversationId: 'd', store: down, now: 4 })).plan.resync?.reason).toBe('store_unavailable');
  });
});

/**
 * The process's copies of its conversations (conversation/local-copy.ts) are bounded: per store, the
 * {@link LOCAL_COPIES} most recently prepared conversations, the least recently prepared dropped first. A process
 * serving many conversations holds no more than that, and the copy it keeps is the one most likely to be asked for.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { LOCAL_COPIES } from '../../src/conversation/local-copy.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';

/** A store that fails while `down` (not the in-memory store itself: that one keeps no copy). */
class OutageStore implements ConversationStore {
  down = false;
  readonly #inner = new MemoryConversationStore();
  load(id: string): Promise<ConversationRecord | undefined> {
    return this.down ? Promise.reject(new Error('store down (test)')) : this.#inner.load(id);
  }
  save(record: ConversationRecord, expected: number | null): Promise<void> {
    return this.down ? Promise.reject(new Error('store down (test)')) : this.#inner.save(record, expected);
  }
  delete(id: string): Promise<void> {
    return this.#inner.delete(id);
  }
}

describe('the process’s copies of its conversations', () => {
  it(`keeps those of the ${LOCAL_COPIES} most recently prepared conversations per store, the least recent dropped first`, async () => {
    const store = new OutageStore();
    const messages = (i: number): MessageParam[] => [{ role: 'user', content: `conversation ${i}: fix the total` }];
    const send = (i: number) =>
      prepare(
        { model: 'claude-sonnet-4-6', max_tokens: 1024, system: 'You are a coding agent.', messages: messages(i) },
        { conversationId: `c${i}`, store, now: 1_000 + i },
      );
    for (let i = 0; i < LOCAL_COPIES; i++) await send(i);
    // c0 prepared again: the most recent now; one more conversation drops the least recent, c1.
    await send(0);
    await send(LOCAL_COPIES);
    store.down = true;
    // The kept ones first: a request rendered without a copy keeps one, which drops another.
    for (const [i, kept] of [
      [0, true],
      [2, true],
      [LOCAL_COPIES, true],
      [1, false],
    ] as const) {
      const { plan } = await send(i);
      expect(plan.localState?.reason, `c${i}`).toBe(kept ? 'store_unavailable' : undefined);
      if (!kept) expect(plan.resync?.reason, `c${i}`).toBe('store_unavailable');
    }
  });
});

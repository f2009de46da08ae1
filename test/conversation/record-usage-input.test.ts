/**
 * recordUsage given something that is not a response or its usage (a JavaScript loop passing the stream object,
 * `message.content`, an event's partial usage): a typed error naming the field, and nothing saved. Before, it was
 * recorded as a request with no figures, and every later formatConversationStats of that conversation, in every
 * process sharing the store, threw a TypeError.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { conversationStats, formatConversationStats, prepare, recordUsage } from '../../src/conversation/prepare.js';
import { InvalidParamsError } from '../../src/errors.js';

const params = { model: 'claude-sonnet-4-6', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('recordUsage: what is not a usage', () => {
  const bad: [string, unknown, string][] = [
    ['an object without usage fields', { foo: 1 }, 'usage.input_tokens'],
    ['undefined', undefined, 'usage'],
    ['a content array', [{ type: 'text', text: 'Hi' }], 'usage.input_tokens'],
    ['a message whose usage is null', { id: 'msg_1', usage: null }, 'usage'],
    ['input_tokens as a string', { usage: { input_tokens: '12' } }, 'usage.input_tokens'],
    ['a negative count', { input_tokens: -1 }, 'usage.input_tokens'],
    ['a NaN cache read', { input_tokens: 1, cache_read_input_tokens: Number.NaN }, 'usage.cache_read_input_tokens'],
    ['an infinite count', { input_tokens: Number.POSITIVE_INFINITY }, 'usage.input_tokens'],
    ['output_tokens as a string', { input_tokens: 1, output_tokens: '12' }, 'usage.output_tokens'],
    ['a message_delta usage without input_tokens', { usage: { output_tokens: 12 } }, 'usage.input_tokens'],
  ];
  for (const [name, value, where] of bad) {
    it(`${name}: InvalidParamsError at ${where}, nothing saved`, async () => {
      const store = new MemoryConversationStore();
      const ref = { conversationId: 'c', store };
      await prepare(params, { ...ref, now: 1 });
      const before = await store.load('c');
      const stats = await formatConversationStats(ref);
      const err = await recordUsage(value as never, ref).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidParamsError);
      expect((err as InvalidParamsError).where).toBe(where);
      expect(await store.load('c')).toEqual(before);
      expect(await formatConversationStats(ref)).toBe(stats);
      // The loop's next, correct call records as usual.
      expect(await recordUsage({ id: 'msg_1', usage: { input_tokens: 10, output_tokens: 2 } }, ref)).toBe(true);
      expect((await conversationStats(ref))?.totals.requests).toBe(1);
    });
  }

  it('what the API and the SDKs report passes: nulls in the cache fields, no output_tokens', async () => {
    const store = new MemoryConversationStore();
    const ref = { conversationId: 'c', store };
    await prepare(params, { ...ref, now: 1 });
    const usage = { input_tokens: 10, cache_read_input_tokens: null, cache_creation_input_tokens: null, cache_creation: null };
    expect(await recordUsage(usage, ref)).toBe(true);
  });

  it('zero counts pass: a request wholly read from cache, nothing written, no output', async () => {
    const store = new MemoryConversationStore();
    const ref = { conversationId: 'c', store };
    await prepare(params, { ...ref, now: 1 });
    const usage = { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 0 };
    expect(await recordUsage(usage, ref)).toBe(true);
  });
});

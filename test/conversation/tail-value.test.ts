/**
 * A tail that is not a string or blocks: most often the live-view function itself (`tail: liveView`, the AI SDK
 * middleware's form) where prepare and Session take its result. The error said "expected an array of content
 * blocks", which sent users to wrap a string in an array; it now says what is accepted and what was given.
 */
import { describe, expect, it } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { TimelineError } from '../../src/errors.js';
import { Session } from '../../src/session/session.js';

const liveView = () => 'budget: 12% used';
const params = { model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };

describe('a tail of the wrong kind', () => {
  it.each([
    [liveView, 'a function (pass its result: tail: liveView(), not tail: liveView)'],
    [42, 'a number'],
    [{ text: 'budget' }, 'an object'],
  ])('prepare names what tail accepts and what it got (%s)', async (tail, got) => {
    const err = await prepare(params, { conversationId: 'c', store: new MemoryConversationStore(), tail: tail as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimelineError);
    expect((err as Error).message).toBe(`tail: expected a string or an array of content blocks, got ${got}`);
  });

  it('Session.setTail too', () => {
    const session = new Session({ model: 'claude-sonnet-4-6', instructions: ['Be brief.'], tools: [] });
    expect(() => session.setTail(liveView as never)).toThrow('tail: expected a string or an array of content blocks, got a function');
  });

  it('a string and blocks are the tail', async () => {
    const store = new MemoryConversationStore();
    for (const tail of [liveView(), [{ type: 'text' as const, text: liveView() }]]) {
      const { params: sent } = await prepare(params, { conversationId: 'ok', store, tail });
      expect(JSON.stringify(sent.messages.at(-1))).toContain('budget: 12% used');
    }
  });
});

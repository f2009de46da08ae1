/**
 * prepare remembers how far a loop's own messages array was scanned for consecutive assistant messages (a loop that
 * pushes onto one array is not re-read from the start on every request). An array edited in place behind that point
 * must still be merged as the API merges it: the same request as the same messages in a new array.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { BASE } from './store-contract.js';

const base = { ...BASE, model: 'claude-sonnet-4-5' };
const use = (n: number): Anthropic.MessageParam => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Read', input: { path: `f${n}` } }],
});
const result = (n: number): Anthropic.MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `text of f${n}` }],
});

describe('consecutive assistant messages in an array edited in place', () => {
  it('are merged when an assistant message replaces the scanned last message, as in a new array', async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Read the files.' },
      { role: 'assistant', content: 'Which ones?' },
      { role: 'user', content: 'All of them.' },
    ];
    const kept = { conversationId: 'kept', store: new MemoryConversationStore(), now: 5_000 };
    await prepare({ ...base, messages }, kept);
    // The loop rewrites its history in place: the message scanned last becomes the tool_use of the response before
    // it (two assistant messages in a row, the second at the place scanned last time), then its result.
    messages.splice(2, 1, use(1), result(1));
    const inPlace = await prepare({ ...base, messages }, kept);
    const fresh = await prepare({ ...base, messages: [...messages] }, { conversationId: 'fresh', store: new MemoryConversationStore(), now: 5_000 });
    expect(JSON.stringify(inPlace.params.messages)).toBe(JSON.stringify(fresh.params.messages));
    // One assistant message holds the text and the tool_use (the merge).
    const roles = inPlace.params.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
  });

  it('are merged when pushed onto an array prepared before', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files.' }];
    const kept = { conversationId: 'kept', store: new MemoryConversationStore(), now: 5_000 };
    await prepare({ ...base, messages }, kept);
    messages.push({ role: 'assistant', content: 'Reading.' }, use(1), result(1));
    const pushed = await prepare({ ...base, messages }, kept);
    const fresh = await prepare({ ...base, messages: [...messages] }, { conversationId: 'fresh', store: new MemoryConversationStore(), now: 5_000 });
    expect(JSON.stringify(pushed.params.messages)).toBe(JSON.stringify(fresh.params.messages));
    expect(pushed.plan.resync).toBeUndefined();
  });
});

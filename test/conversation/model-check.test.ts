/**
 * prepare checks a model id for surrounding whitespace once per id it has seen pass (a loop sends the same id on
 * every request); an id that does not pass is refused on every request, whichever ids came before it.
 */
import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';

const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('the model id check, remembered for the id that passed', () => {
  it('refuses a spaced id after a sendable one, every time it is sent, and takes the sendable one again after', async () => {
    const store = new MemoryConversationStore();
    const run = (model: string, id: string) => prepare({ model, max_tokens: 64, messages }, { conversationId: id, store });
    await expect(run('claude-sonnet-4-6', 'a')).resolves.toBeDefined();
    for (let i = 0; i < 2; i++) await expect(run('claude-sonnet-4-6 ', `b${i}`)).rejects.toThrow(InvalidParamsError);
    await expect(run('claude-sonnet-4-6', 'c')).resolves.toBeDefined();
    await expect(run(' claude-sonnet-4-6', 'd')).rejects.toThrow(/pass "claude-sonnet-4-6"/);
    expect(await store.load('b0')).toBeUndefined();
    expect(await store.load('d')).toBeUndefined();
  });
});

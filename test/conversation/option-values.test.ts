/**
 * prepare's option values (not only their names): a value an option cannot take is refused with an
 * `InvalidParamsError` naming `options.<name>` before anything is loaded or saved. Before, `diagnostics: 'yes'` was
 * taken as true (the API's diagnostics asked for) and `onStoreError: 'ignore'` as 'fallback' (review9, "found, left" 3).
 * (`now` was already refused, by render, as an `InvalidOptionError` naming `now`.)
 */
import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';

const params = { model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('prepare refuses option values it cannot take', () => {
  const refused: [string, unknown][] = [
    ['diagnostics', 'yes'],
    ['diagnostics', 1],
    ['onStoreError', 'ignore'],
    ['onStoreError', true],
  ];
  for (const [option, value] of refused) {
    it(`${option}: ${String(value)} names options.${option}, nothing saved`, async () => {
      const store = new MemoryConversationStore();
      const err = await prepare(params, { conversationId: 'c', store, [option]: value } as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidParamsError);
      expect((err as InvalidParamsError).where).toBe(`options.${option}`);
      expect((err as Error).message).toContain(JSON.stringify(value) ?? String(value));
      expect(await store.load('c')).toBeUndefined();
    });
  }
  it('the values it can take still go through (undefined too: a spread of optional fields)', async () => {
    const store = new MemoryConversationStore();
    const ok = [
      { diagnostics: true, onStoreError: 'throw' },
      { diagnostics: false, onStoreError: 'fallback' },
      { diagnostics: undefined, onStoreError: undefined },
    ] as const;
    for (const options of ok) await expect(prepare(params, { conversationId: 'c', store, ...options } as never)).resolves.toBeDefined();
  });
});

/**
 * A model id with leading or trailing whitespace resolved its profile (canonicalModelId trims, to read it) but was
 * sent as it was, an id no model has: the request was refused (review9, "found, left" 4). The doors that send the id
 * refuse it instead, naming the model and the trimmed id to pass; resolving a profile (replay, pricing a trace)
 * stays lenient.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, InvalidParamsError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { Session } from '../../src/session/session.js';

const spaced = [' claude-sonnet-4-6', 'claude-sonnet-4-6 ', '\tclaude-sonnet-4-6\n', 'claude-sonnet-4-5[1m] '];
const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('a model id with surrounding whitespace is refused where it would be sent', () => {
  for (const model of spaced) {
    it(`prepare: ${JSON.stringify(model)} names model and the id to pass, nothing saved`, async () => {
      const store = new MemoryConversationStore();
      for (const render of [undefined, { profile: resolveProfile('claude-sonnet-4-6') }]) {
        const err = await prepare({ model, max_tokens: 64, messages }, { conversationId: 'c', store, ...(render ? { render } : {}) }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InvalidParamsError);
        expect((err as InvalidParamsError).where).toBe('model');
        expect((err as Error).message).toContain(`pass ${JSON.stringify(model.trim())}`);
      }
      expect(await store.load('c')).toBeUndefined();
    });
    it(`Session: ${JSON.stringify(model)} names the model option`, () => {
      let err: unknown;
      try {
        new Session({ model, instructions: [] });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe('model');
      expect((err as Error).message).toContain(`pass ${JSON.stringify(model.trim())}`);
    });
  }
  it('the trimmed ids still go through, and resolving a profile stays lenient', async () => {
    await expect(
      prepare({ model: 'claude-sonnet-4-6', max_tokens: 64, messages }, { conversationId: 'ok', store: new MemoryConversationStore() }),
    ).resolves.toBeDefined();
    expect(() => new Session({ model: 'claude-sonnet-4-5[1m]', instructions: [] })).not.toThrow();
    expect(resolveProfile(' claude-sonnet-4-6').id).toBe('claude-sonnet-4-6');
  });
});

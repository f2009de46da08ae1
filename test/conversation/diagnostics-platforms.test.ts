/**
 * The API's cache diagnostics exist on the Claude API only: "Cache diagnostics is currently available on the Claude
 * API only. It is not supported on Amazon Bedrock or Vertex AI." (platform.claude.com/docs/en/build-with-claude/
 * cache-diagnostics, read with the search tool on 2026-12-01). `diagnostics: true` with a Bedrock or Vertex model id
 * used to send `diagnostics` there all the same (review13, "found, left" 5): a field the platform does not offer,
 * and stats that would never hold a verdict. Now prepare and Session refuse that combination with a typed error
 * naming the option, the platform and the fix, before anything is saved; an Anthropic API id still asks.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, InvalidParamsError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { Session } from '../../src/session/session.js';

const CLOUD_IDS: [string, 'Bedrock' | 'Vertex'][] = [
  ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'Bedrock'],
  ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'Bedrock'],
  ['global.anthropic.claude-sonnet-4-6', 'Bedrock'],
  ['arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'Bedrock'],
  ['claude-sonnet-4-5@20250929', 'Vertex'],
];

const params = (model: string) => ({ model, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Hi' }] });

describe('diagnostics: true with a Bedrock or Vertex model id', () => {
  for (const [model, platform] of CLOUD_IDS) {
    it(`prepare refuses it for ${model}, nothing saved`, async () => {
      const store = new MemoryConversationStore();
      const err = await prepare(params(model), { conversationId: 'c', store, diagnostics: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidParamsError);
      expect((err as InvalidParamsError).where).toBe('options.diagnostics');
      expect((err as Error).message).toContain(platform);
      expect((err as Error).message).toContain(model);
      expect(await store.load('c')).toBeUndefined();
      // Without diagnostics the same id prepares, and no `diagnostics` field is sent.
      const { params: out } = await prepare(params(model), { conversationId: 'c', store });
      expect('diagnostics' in out).toBe(false);
    });

    it(`Session refuses it for ${model}`, () => {
      let err: unknown;
      try {
        new Session({ model, instructions: [], diagnostics: true });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe('diagnostics');
      expect((err as Error).message).toContain(platform);
      expect(() => new Session({ model, instructions: [], diagnostics: false })).not.toThrow();
    });
  }

  it('an Anthropic API id (dated, alias) still asks for them', async () => {
    for (const model of ['claude-sonnet-4-6', 'claude-sonnet-4-5-20250929', 'claude-3-7-sonnet-latest']) {
      const { params: out } = await prepare(params(model), { conversationId: model, store: new MemoryConversationStore(), diagnostics: true });
      expect((out as { diagnostics?: unknown }).diagnostics).toEqual({ previous_message_id: null });
      expect(() => new Session({ model, instructions: [], diagnostics: true })).not.toThrow();
    }
  });
});

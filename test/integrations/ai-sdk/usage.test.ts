/**
 * `reportedUsage` on every supported AI SDK major: ai 7 and 6 (LanguageModelV4 / V3)
 * report `usage.inputTokens` as `{ total, noCache, cacheRead, cacheWrite }`; ai 5
 * (LanguageModelV2) as flat numbers, any of them `undefined`. The Anthropic
 * providers of every major also put the API's raw usage under
 * `providerMetadata.anthropic.usage`, which wins.
 */
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { conversationStats } from '../../../src/conversation/prepare.js';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, reportedUsage, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';

type Usage = Parameters<typeof reportedUsage>[1];
/** A LanguageModelV2 usage (ai 5), which ai 7's types do not describe. */
const v2 = (u: Record<string, number | undefined>) => u as unknown as Usage;

describe('reportedUsage', () => {
  it('reads the V3/V4 standardized usage', () => {
    const usage = { inputTokens: { total: 130, noCache: 10, cacheRead: 100, cacheWrite: 20 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
    expect(reportedUsage(undefined, usage as Usage)).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
    });
  });

  it('ai 5 (V2): the Anthropic metadata wins; an output count missing from it is taken from the flat usage', () => {
    const metadata = { anthropic: { usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 } } };
    expect(reportedUsage(metadata, v2({ inputTokens: 10, outputTokens: 7, totalTokens: 17, cachedInputTokens: 100 }))).toEqual({
      input_tokens: 10,
      output_tokens: 7,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
    });
    expect(reportedUsage(metadata, v2({ inputTokens: undefined, outputTokens: undefined, totalTokens: undefined }))).toEqual({
      input_tokens: 10,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
    });
  });

  it('ai 5 (V2) without Anthropic metadata: nothing (V2 does not say whether input counts cached tokens, nor report writes), never a throw', () => {
    expect(reportedUsage(undefined, v2({ inputTokens: 10, outputTokens: 7, totalTokens: 17, cachedInputTokens: 100 }))).toBeUndefined();
    expect(reportedUsage(undefined, v2({ inputTokens: undefined, outputTokens: undefined, totalTokens: undefined }))).toBeUndefined();
    expect(reportedUsage({}, undefined)).toBeUndefined();
  });

  // The shapes below are what the ai 5 providers return, read from their code (2026-12-01): @ai-sdk/openai 2.0.131
  // (Chat: inputTokens = prompt_tokens, cachedInputTokens = prompt_tokens_details.cached_tokens, GPT-5.6 writes in
  // providerMetadata.openai.usage.cacheWriteTokens; Responses the same from input_tokens) and @ai-sdk/amazon-bedrock
  // 3.0.137 (inputTokens = Converse's uncached inputTokens, cachedInputTokens = cacheReadInputTokens, writes in
  // providerMetadata.bedrock.usage.cacheWriteInputTokens). Each matches the fake server's own usage of that request.
  it('ai 5 (V2) OpenAI: the whole prompt less its cached part and its writes is the uncached input', () => {
    const chat = v2({ inputTokens: 2460, outputTokens: 10, totalTokens: 2470, cachedInputTokens: 1536 });
    expect(reportedUsage({ openai: {} }, chat, 'openai')).toEqual({
      input_tokens: 924,
      output_tokens: 10,
      cache_read_input_tokens: 1536,
      cache_creation_input_tokens: 0,
    });
    const written = v2({ inputTokens: 1646, outputTokens: 10, totalTokens: 1656, cachedInputTokens: 0 });
    expect(reportedUsage({ openai: { responseId: 'resp_1', usage: { cacheWriteTokens: 1646 } } }, written, 'openai')).toEqual({
      input_tokens: 0,
      output_tokens: 10,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 1646,
    });
  });

  it('ai 5 (V2) Converse: inputTokens is already the uncached input; writes from the bedrock metadata', () => {
    const usage = v2({ inputTokens: 4, outputTokens: 10, totalTokens: 14, cachedInputTokens: undefined });
    expect(reportedUsage({ bedrock: { usage: { cacheWriteInputTokens: 1642 }, stopSequence: null } }, usage, 'bedrock-converse')).toEqual({
      input_tokens: 4,
      output_tokens: 10,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 1642,
    });
    expect(reportedUsage(undefined, v2({ inputTokens: 818, outputTokens: 10, totalTokens: 828, cachedInputTokens: 1642 }), 'bedrock-converse')).toEqual({
      input_tokens: 818,
      output_tokens: 10,
      cache_read_input_tokens: 1642,
      cache_creation_input_tokens: 0,
    });
  });

  it('the middleware records an ai 5 OpenAI or Converse usage (it warned usage_not_recorded and kept no figures)', async () => {
    const cases = [
      { provider: 'openai.chat', modelId: 'gpt-5.4', usage: { inputTokens: 2460, outputTokens: 10, totalTokens: 2470, cachedInputTokens: 1536 }, metadata: {} },
      {
        provider: 'amazon-bedrock',
        modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        usage: { inputTokens: 818, outputTokens: 10, totalTokens: 828, cachedInputTokens: 1642 },
        metadata: { bedrock: { usage: { cacheWriteInputTokens: 7 } } },
      },
    ];
    for (const c of cases) {
      // What an ai 5 provider hands the middleware: a V2 flat usage (ai 7's mock passes it through as given).
      const mock = new MockLanguageModelV4({
        provider: c.provider,
        modelId: c.modelId,
        doGenerate: {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: c.usage as never,
          providerMetadata: c.metadata,
          warnings: [],
        },
      });
      const store = new MemoryConversationStore();
      const warnings: CachepointWarning[] = [];
      const model = wrapLanguageModel({
        model: mock,
        middleware: cachepointMiddleware({ conversationId: c.provider, store, onWarning: (w) => warnings.push(w) }),
      });
      await generateText({ model, system: 'Be brief.', prompt: 'Hi.' });
      expect(warnings).toEqual([]);
      const reported = (await conversationStats({ conversationId: c.provider, store }))?.requests.map((r) => [
        r.reported.input,
        r.reported.cacheRead,
        r.reported.cacheWrite,
      ]);
      expect(reported).toEqual([c.provider === 'openai.chat' ? [924, 1536, 0] : [818, 1642, 7]]);
    }
  });
});

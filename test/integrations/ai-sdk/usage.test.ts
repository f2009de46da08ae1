/**
 * `reportedUsage` on every supported AI SDK major: ai 7 and 6 (LanguageModelV4 / V3)
 * report `usage.inputTokens` as `{ total, noCache, cacheRead, cacheWrite }`; ai 5
 * (LanguageModelV2) as flat numbers, any of them `undefined`. The Anthropic
 * providers of every major also put the API's raw usage under
 * `providerMetadata.anthropic.usage`, which wins.
 */
import { describe, expect, it } from 'vitest';
import { reportedUsage } from '../../../src/integrations/ai-sdk/index.js';

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
});

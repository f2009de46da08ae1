import { describe, expect, it } from 'vitest';
import { priceUsage } from '../../src/models/pricing.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { recordedUsage } from '../../src/report/recorded.js';

describe('recordedUsage', () => {
  it('sums and prices the usage the provider reported, with the envelope model, and notes an estimated envelope', () => {
    const u1 = { input_tokens: 10, cache_creation_input_tokens: 2000, cache_read_input_tokens: 0, output_tokens: 5 };
    const u2 = { input_tokens: 7, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 5 };
    const r = recordedUsage([
      { type: 'envelope', model: 'claude-opus-4-6', estimated: { tokens: 2000 } },
      { type: 'user' },
      { type: 'assistant', usage: u1 },
      { type: 'tool_results' },
      { type: 'assistant', usage: u2 },
      { type: 'assistant' },
    ]);
    const prices = resolveProfile('claude-opus-4-6').prices;
    expect(r).toEqual({
      responses: 3,
      withUsage: 2,
      input: 17,
      cacheRead: 2000,
      cacheWrite: 2100,
      cost: priceUsage(prices, u1).total + priceUsage(prices, u2).total,
      estimatedEnvelope: true,
    });
  });

  it('is undefined when no response carries usage', () => {
    expect(recordedUsage([{ type: 'envelope' }, { type: 'assistant' }])).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { UnknownModelError } from '../../src/errors.js';
import { customProfile, DEFAULT_MODEL, MODEL_PROFILES, resolveProfile } from '../../src/models/profiles.js';

describe('resolveProfile', () => {
  it('finds a model and its documented figures', () => {
    const p = resolveProfile('claude-sonnet-4-6');
    expect(p.minCacheableTokens).toBe(1024);
    expect(p.prices).toEqual({ input: 3, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 });
    expect(p.ttlMs).toEqual({ '5m': 300_000, '1h': 3_600_000 });
    expect(p.lookback).toBe(20);
    expect(resolveProfile('claude-opus-4-5').minCacheableTokens).toBe(4096);
    expect(resolveProfile('claude-fable-5-1').prices.cacheRead).toBeCloseTo(0.25);
    expect(resolveProfile('claude-haiku-4-5').keepsThinking).toBe(false);
    expect(resolveProfile(DEFAULT_MODEL).id).toBe(DEFAULT_MODEL);
  });

  it('resolves dated ids to their family', () => {
    expect(resolveProfile('claude-haiku-4-5-20251001')).toBe(MODEL_PROFILES['claude-haiku-4-5']);
  });

  it('names the known models when a model is unknown', () => {
    expect(() => resolveProfile('gpt-4o')).toThrow(UnknownModelError);
    try {
      resolveProfile('gpt-4o');
    } catch (e) {
      expect((e as UnknownModelError).known).toContain('claude-sonnet-4-6');
      expect((e as Error).message).toMatch(/unknown model "gpt-4o". .*Known: .*claude-opus-4-5.*customProfile/);
    }
  });

  it('lets users override and extend the table', () => {
    const mine = customProfile('my-proxy-model', { contextWindow: 64_000, minCacheableTokens: 2048, prices: { input: 2 } });
    expect(mine.prices).toEqual({ input: 2, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2, output: 10 });
    expect(resolveProfile('my-proxy-model', { 'my-proxy-model': mine })).toBe(mine);
    const cheaper = { ...MODEL_PROFILES['claude-sonnet-4-6']!, minCacheableTokens: 2048 };
    expect(resolveProfile('claude-sonnet-4-6', { 'claude-sonnet-4-6': cheaper }).minCacheableTokens).toBe(2048);
    expect(resolveProfile(mine)).toBe(mine);
  });

  it('keeps every table entry consistent: multipliers, windows, minimums', () => {
    for (const p of Object.values(MODEL_PROFILES)) {
      expect(p.prices.cacheWrite5m).toBeCloseTo(p.prices.input * 1.25);
      expect(p.prices.cacheWrite1h).toBeCloseTo(p.prices.input * 2);
      expect([512, 1024, 2048, 4096]).toContain(p.minCacheableTokens);
      expect(p.contextWindow).toBeGreaterThanOrEqual(200_000);
      expect(Object.isFrozen(p)).toBe(true);
    }
  });
});

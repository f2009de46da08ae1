import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { Calibration } from '../../src/tokens/calibration.js';

/** A deterministic PRNG (mulberry32), so the noisy samples are the same every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODEL = 'claude-sonnet-4-6';

describe('Calibration', () => {
  it('has factor 1 and corrects nothing before any observation', () => {
    const c = new Calibration();
    expect(c.factor(MODEL)).toBe(1);
    expect(c.correct(MODEL, 1234)).toBe(1234);
    expect(c.stats()).toEqual({});
  });

  it('converges on the true ratio from noisy usage split across input, cache reads and writes', () => {
    const c = new Calibration();
    const random = rng(7);
    const TRUE = 1.17;
    for (let i = 0; i < 40; i++) {
      const local = 2_000 + Math.floor(random() * 50_000);
      const real = Math.round(local * TRUE * (1 + (random() - 0.5) * 0.06));
      // The prompt is split between the three usage fields as a warm cache would report it.
      const read = Math.floor(real * 0.8);
      const write = Math.floor(real * 0.15);
      c.observe(MODEL, local, { input_tokens: real - read - write, cache_read_input_tokens: read, cache_creation_input_tokens: write });
    }
    expect(c.factor(MODEL)).toBeGreaterThan(TRUE - 0.02);
    expect(c.factor(MODEL)).toBeLessThan(TRUE + 0.02);
    expect(c.stats()[MODEL]).toMatchObject({ samples: 40 });
    expect(c.correct(MODEL, 100_000)).toBeGreaterThan(115_000);
  });

  it('ignores a few wild samples (the median is robust) and follows a lasting change within the window', () => {
    const c = new Calibration({ window: 9 });
    for (let i = 0; i < 9; i++) c.observe(MODEL, 10_000, { input_tokens: 12_000 });
    c.observe(MODEL, 10_000, { input_tokens: 90_000 });
    c.observe(MODEL, 10_000, { input_tokens: 500 });
    expect(c.factor(MODEL)).toBeCloseTo(1.2, 10);
    for (let i = 0; i < 9; i++) c.observe(MODEL, 10_000, { input_tokens: 9_000 });
    expect(c.factor(MODEL)).toBeCloseTo(0.9, 10);
  });

  it('clamps the factor to [min, max]', () => {
    const c = new Calibration();
    c.observe(MODEL, 1_000, { input_tokens: 10_000 });
    c.observe('claude-haiku-4-5', 10_000, { input_tokens: 1_000 });
    expect(c.factor(MODEL)).toBe(2);
    expect(c.factor('claude-haiku-4-5')).toBe(0.5);
    expect(c.stats()[MODEL]?.lastRatio).toBe(10);
  });

  it('ignores tiny requests and empty reports', () => {
    const c = new Calibration();
    expect(c.observe(MODEL, 50, { input_tokens: 400 })).toBe(false);
    expect(c.observe(MODEL, 5_000, { input_tokens: 0, cache_read_input_tokens: null, cache_creation_input_tokens: null })).toBe(false);
    expect(c.observe(MODEL, 0, { input_tokens: 10 })).toBe(false);
    expect(c.factor(MODEL)).toBe(1);
    expect(c.observe(MODEL, 5_000, { input_tokens: 5_500, cache_read_input_tokens: null })).toBe(true);
    expect(c.factor(MODEL)).toBeCloseTo(1.1, 10);
  });

  it('keeps one factor per model family: dated ids share it, other models do not', () => {
    const c = new Calibration();
    c.observe('claude-haiku-4-5-20251001', 10_000, { input_tokens: 13_000 });
    expect(c.factor('claude-haiku-4-5')).toBeCloseTo(1.3, 10);
    expect(c.factor(MODEL)).toBe(1);
    expect(Object.keys(c.stats())).toEqual(['claude-haiku-4-5']);
  });

  it('restores from a snapshot', () => {
    const c = new Calibration();
    for (const real of [11_000, 11_500, 12_000]) c.observe(MODEL, 10_000, { input_tokens: real });
    const again = new Calibration({}, JSON.parse(JSON.stringify(c.snapshot())));
    expect(again.stats()).toEqual({ [MODEL]: { factor: c.factor(MODEL), samples: 3 } });
  });

  it('rejects options it cannot use, naming them', () => {
    expect(() => new Calibration({ window: 0 })).toThrow(InvalidOptionError);
    expect(() => new Calibration({ min: 1.5 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: min/max: need 0 < min ≤ 1 ≤ max < ∞, got min 1.5, max 2]`,
    );
  });
});

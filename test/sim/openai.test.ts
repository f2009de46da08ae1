import { describe, expect, it } from 'vitest';
import { toOpenAIChat, toOpenAIResponses, type OpenAIExtras } from '../../src/providers/openai.js';
import { OPENAI_MODELS } from '../../src/providers/openai-profile.js';
import { render } from '../../src/render/render.js';
import type { ModelProfile } from '../../src/models/profiles.js';
import { fromOpenAIChat, fromOpenAIResponses } from '../../src/sim/from-provider.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import type { SimAccepted } from '../../src/sim/types.js';
import { setTail } from '../../src/timeline/edit.js';
import { session, toolRound } from '../helpers/build.js';

const GPT54 = OPENAI_MODELS['gpt-5.4']!;
const TERRA = OPENAI_MODELS['gpt-5.6-terra']!;

/** Runs `n` requests of a growing session through the simulator, `gapMs` apart, with a tail that changes every time. */
function run(profile: ModelProfile, n: number, gapMs: number, extras: OpenAIExtras = {}, chat = false): SimAccepted[] {
  const sim = new CacheSimulator({ profile });
  let s = session([1, 2], profile.id);
  const out: SimAccepted[] = [];
  for (let i = 0; i < n; i++) {
    s = setTail(s, [{ type: 'text', text: `Live view ${i}: ${'status line '.repeat(40)}` }]);
    const r = render(s, { profile, now: i * gapMs });
    const params = chat ? fromOpenAIChat(toOpenAIChat(r, extras), profile) : fromOpenAIResponses(toOpenAIResponses(r, extras), profile);
    const res = sim.send(params, i * gapMs);
    if (res.rejected) throw new Error(res.rejected.message);
    out.push(res);
    s = toolRound(r.state);
  }
  return out;
}

describe('automatic prefix caching (before GPT-5.6)', () => {
  it('reads the previous prompt in 128-token steps from 1,024, with no write premium', () => {
    const results = run(GPT54, 5, 10_000, { promptCacheKey: 'conv' });
    expect(results[0]!.usage.cache_read_input_tokens).toBe(0);
    for (const r of results.slice(1)) {
      const read = r.usage.cache_read_input_tokens;
      expect(read).toBeGreaterThanOrEqual(1024);
      expect(read % 128).toBe(0);
      expect(r.usage.cache_creation_input_tokens).toBe(0);
      expect(r.cost.cacheRead).toBeCloseTo((read * GPT54.prices.cacheRead) / 1e6, 12);
    }
  });

  it('forgets after 5 idle minutes in memory, keeps with 24h retention', () => {
    const cold = run(GPT54, 3, 6 * 60_000);
    expect(cold.slice(1).every((r) => r.usage.cache_read_input_tokens === 0)).toBe(true);
    const kept = run(GPT54, 3, 6 * 60_000, { retention: '24h' });
    expect(kept.slice(1).every((r) => r.usage.cache_read_input_tokens > 0)).toBe(true);
  });

  it('prices Chat Completions like Responses', () => {
    const responses = run(GPT54, 4, 10_000);
    const chat = run(GPT54, 4, 10_000, {}, true);
    expect(chat.map((r) => r.usage.cache_read_input_tokens > 0)).toEqual(responses.map((r) => r.usage.cache_read_input_tokens > 0));
  });
});

describe('GPT-5.6 markers', () => {
  it('reads through our markers and bills writes at 1.25× input', () => {
    const results = run(TERRA, 6, 10_000);
    for (const r of results.slice(1)) expect(r.usage.cache_read_input_tokens).toBeGreaterThan(0);
    const w = results[0]!.usage.cache_creation_input_tokens;
    expect(w).toBeGreaterThan(0);
    expect(results[0]!.cost.cacheWrite5m).toBeCloseTo((w * TERRA.prices.input * 1.25) / 1e6, 12);
  });

  it('costs less than the provider implicit marker alone when the tail changes every request', () => {
    const ours = run(TERRA, 8, 10_000).reduce((a, r) => a + r.cost.total, 0);
    // The implicit marker sits on the newest block: the volatile tail, written and never read.
    const implicit = run(TERRA, 8, 10_000, { markers: false }).reduce((a, r) => a + r.cost.total, 0);
    expect(ours).toBeLessThan(implicit);
  });
});

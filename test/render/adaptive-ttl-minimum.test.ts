/**
 * Adaptive TTLs with an envelope under the model's minimum cacheable length: the provider writes no entry for the
 * envelope, so a 1-hour ① keeps nothing across a pause. The hour goes to the first of ⓪ ① ② whose prefix reaches
 * the minimum (cache-points.ts hourAtMinimum), and a pause of 5-60 minutes reads the history up to the previous turn
 * instead of re-writing it. Found by fuzz9 (doors runner, seed 909: a 543-token envelope, the history re-written
 * after each 7-62 minute gap). Judged and priced by the provider cache simulator. Before the change this session
 * cost $0.047148 (the request after the second pause read nothing and wrote 3,886 tokens: $0.014572), after it
 * $0.044327 (that request reads 2,351: $0.006462; the hour's write after the first pause costs $0.005290 more).
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import type { SimResult } from '../../src/sim/types.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';
import { text } from '../helpers/build.js';

const MINUTE = 60_000;
const tokens = new BlockTokenCache(charCounter());
const profile = customProfile('adaptive-minimum', { minCacheableTokens: 1024, contextWindow: 1_000_000, keepsThinking: true, prices: { input: 3 } });
const OPTIONS: RenderOptions = { profile, tokens, adaptiveTtl: true };

/** One tool round: a Read call and its result of `size` characters. */
function round(state: TimelineState, id: string, size: number, now: number): TimelineState {
  const call: ContentBlockParam[] = [{ type: 'tool_use', id, name: 'Read', input: { path: `${id}.ts` } }];
  const s = appendResponse(state, call, now);
  return appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: text(id, size) }], [], now);
}

/**
 * Two turns of a small-envelope agent (turn 1 of `first` rounds); pauses of `pause` before turn 2 (the first idle
 * gap: adaptive TTLs start, and the cache is cold) and between turn 2's rounds (where the hour pays). Every request
 * goes to the simulator as rendered, and to another with 5-minute markers only.
 */
function session(pause: number, first = 3) {
  const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
  // The same requests with 5-minute markers only: what they cost when no hour is held (the envelope's is void).
  const fiveMinutes = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
  let state = createTimeline({
    model: 'claude-sonnet-4-5',
    instructions: ['You read files and answer briefly.'],
    tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
  });
  let now = 1_700_000_000_000;
  const sent: { request: ReturnType<typeof render>; result: SimResult; shortOnly: SimResult }[] = [];
  const send = () => {
    const request = render(state, { ...OPTIONS, now });
    state = request.state;
    const params = toAnthropic(request, { max_tokens: 1024 });
    const short = JSON.parse(JSON.stringify(params, (k, v: unknown) => (k === 'ttl' ? undefined : v)));
    sent.push({ request, result: sim.send(params as never, now), shortOnly: fiveMinutes.send(short, now) });
  };
  let n = 0;
  const turn = (rounds: number, gapBefore: (r: number) => number) => {
    state = startTurn(state, [{ type: 'text', text: `Task ${++n}: read the files.` }], now);
    for (let r = 0; r < rounds; r++) {
      now += gapBefore(r);
      send();
      state = round(state, `toolu_${n}${r}`, 3_000, now);
      now += 5_000;
    }
    now += 20_000;
    send();
    state = appendResponse(state, [{ type: 'text', text: `Done with task ${n}.` }], now);
  };
  turn(first, () => 20_000);
  now += pause;
  turn(4, (r) => (r === 2 ? pause : 20_000));
  return sent;
}

describe('adaptive TTLs with an envelope under the minimum cacheable length', () => {
  it('puts the hour on the first point that reaches the minimum: a 12-minute pause reads the history', () => {
    const sent = session(12 * MINUTE);
    for (const { result } of sent) {
      expect(result.rejected).toBeNull();
      expect(result.explain?.bust).toBe(false);
    }
    // The envelope is under the minimum: no entry for ①.
    const envelope = sent[0]!.request.cachePoints.find((p) => p.labels.includes(1))!;
    expect(envelope.prefixTokens).toBeLessThan(profile.minCacheableTokens);
    // After the first pause, ② (the previous turn's end, over the minimum) carries the hour.
    const afterFirst = sent[4]!.request.cachePoints.find((p) => p.labels.includes(2))!;
    expect(afterFirst.prefixTokens).toBeGreaterThanOrEqual(profile.minCacheableTokens);
    expect(afterFirst.ttl).toBe('1h');
    // The request after the pause inside turn 2 reads at least the history up to turn 1's end.
    const resumed = sent[6]!;
    const two = resumed.request.cachePoints.find((p) => p.labels.includes(2))!;
    expect(resumed.result.usage!.cache_read_input_tokens).toBeGreaterThanOrEqual(two.prefixTokens);
    expect(resumed.request.plan.usage.cache_read_input_tokens).toBe(resumed.result.usage!.cache_read_input_tokens);
    // Priced: the hour's write after the first pause (2× instead of 1.25×) is paid back by the read after the second.
    const cost = (pick: (x: (typeof sent)[number]) => SimResult) => sent.reduce((sum, x) => sum + pick(x).cost!.total, 0);
    expect(sent.reduce((n, x) => n + (x.shortOnly.explain!.bust ? 1 : 0), 0)).toBe(0);
    expect(cost((x) => x.result)).toBeLessThan(cost((x) => x.shortOnly) * 0.95);
  });

  it('buys no hour cold for a history over 4 minimums: ② stays 5-minute after the first pause', () => {
    const sent = session(12 * MINUTE, 8);
    const afterFirst = sent[9]!.request.cachePoints.find((p) => p.labels.includes(2))!;
    expect(afterFirst.prefixTokens).toBeGreaterThan(4 * profile.minCacheableTokens);
    expect(sent[9]!.result.usage!.cache_read_input_tokens).toBe(0);
    expect(afterFirst.ttl).toBe('5m');
    for (const { result } of sent) expect(result.explain?.bust).toBe(false);
  });
});

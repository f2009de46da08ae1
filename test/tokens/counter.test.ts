import { describe, expect, it } from 'vitest';
import { BlockTokenCache, type TokenCounter } from '../../src/tokens/counter.js';
import { payload } from '../../src/synthetic/payloads.js';

/** A counter that records every text it is asked to count (characters / 4). */
function spy(): TokenCounter & { calls: string[] } {
  const calls: string[] = [];
  const count = (text: string): number => {
    calls.push(text);
    return Math.ceil(text.length / 4);
  };
  return { name: 'spy', calls, count };
}

describe('BlockTokenCache', () => {
  it('counts a payload that comes back in a new block with the same text once (a re-read of an unchanged file)', () => {
    const counter = spy();
    const cache = new BlockTokenCache(counter);
    const text = payload('code', 3_000, 1);
    const first = cache.tokens({ type: 'tool_result', tool_use_id: 'toolu_1', content: text });
    const again = cache.tokens({ type: 'tool_result', tool_use_id: 'toolu_2', content: `${text}` });
    expect(again).toBe(first);
    expect(counter.calls.filter((t) => t === text)).toHaveLength(1);
  });

  it('counts short texts and different texts each time, with the same figures as without the memo', () => {
    const counter = spy();
    const cache = new BlockTokenCache(counter);
    cache.tokens({ type: 'text', text: 'short' });
    cache.tokens({ type: 'text', text: 'short' });
    const a = payload('json', 2_000, 1);
    const b = payload('json', 2_000, 2);
    expect(cache.tokens({ type: 'text', text: a })).toBe(new BlockTokenCache(spy()).tokens({ type: 'text', text: a }));
    cache.tokens({ type: 'text', text: b });
    expect(counter.calls).toEqual(['short', 'short', a, b]);
  });
});

/**
 * Issue 13, item 14: renderAsync reads the clock once. It used to read it before
 * awaiting the summarizer and again after; a window that went cold in between
 * made the second read plan a different compaction (or none), so the summary
 * was dropped or the async summarizer was called synchronously.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { render, renderAsync } from '../../src/render/render.js';
import type { Summarizer } from '../../src/summarize/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';
import { startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';

const big = customProfile('test-big', { contextWindow: 10_000_000, minCacheableTokens: 1024, prices: { input: 3 } });
const small = customProfile('test-small', { contextWindow: 12_000, minCacheableTokens: 1024, prices: { input: 3 } });

function grown(): TimelineState {
  let s = newSession();
  for (let t = 1; t <= 10; t++) {
    s = startTurn(s, `Task ${t}`);
    for (let r = 0; r < 3; r++) s = toolRound(s, 1, 1200);
    if (t < 10) s = finalAnswer(s);
  }
  return s;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('renderAsync', () => {
  it('reads the clock once: a window that goes cold while the summarizer runs changes nothing', async () => {
    // Warm at t0 (rendered 10 s earlier), cold at t1 (6 minutes later): cold, pruning would shrink
    // the input under the threshold and no compaction would be planned.
    const t0 = 1_000_000;
    const t1 = t0 + 6 * 60_000;
    const state = render(grown(), { profile: big, prune: { enabled: false }, now: t0 - 10_000 }).state;
    const llm: Summarizer = { name: 'fake-llm', summarize: async () => ({ text: 'Fixed the ten bugs.', by: 'fake-llm' }) };
    const clock = vi.spyOn(Date, 'now').mockReturnValueOnce(t0).mockReturnValue(t1);
    const r = await renderAsync(state, { profile: small, summarizer: llm });
    expect(clock).toHaveBeenCalledTimes(1);
    expect(r.at).toBe(t0);
    const d = r.decisions.find((x) => x.type === 'compact');
    expect(d && d.type === 'compact' && d.by).toBe('fake-llm');
    expect(r.state.summaries.at(-1)!.text).toContain('Fixed the ten bugs.');
  });
});

/**
 * Issue 13, items 10 and 11: `prune: { enabled: false }` holds when compaction
 * runs (compaction used to prune old payloads of turns it did not cover, for
 * free, whatever the option said), and the one-time prune notice, a block of
 * the stream, can be recalled by its path.
 */
import { describe, expect, it } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { recall } from '../../src/render/hide-block.js';
import { PRUNE_NOTICE } from '../../src/render/notes.js';
import { render } from '../../src/render/render.js';
import { handleRecall } from '../../src/recall/recall-tool.js';
import { startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

const small = customProfile('test-small', { contextWindow: 12_000, minCacheableTokens: 1024, prices: { input: 3 } });

function grow(turns: number, roundsPerTurn: number, size: number): TimelineState {
  let s = newSession();
  for (let t = 1; t <= turns; t++) {
    s = startTurn(s, `Task ${t}`);
    for (let r = 0; r < roundsPerTurn; r++) s = toolRound(s, 1, size);
    if (t < turns) s = finalAnswer(s);
  }
  return s;
}

const big = customProfile('test-big', { contextWindow: 10_000_000, minCacheableTokens: 1024, prices: { input: 3 } });

/** Over the small window's threshold, and warm (rendered 10 s before `now: 0`), so the prune pass itself does nothing. */
function warmAndFull(): TimelineState {
  return render(grow(10, 3, 1200), { profile: big, prune: { enabled: false }, now: -10_000 }).state;
}

describe('prune.enabled: false', () => {
  it('holds through compaction: no prune decision, nothing hidden', () => {
    const r = render(warmAndFull(), { profile: small, prune: { enabled: false }, now: 0 });
    expect(r.decisions.some((d) => d.type === 'compact')).toBe(true);
    expect(r.decisions.filter((d) => d.type === 'prune')).toEqual([]);
    expect(r.state.hidden).toEqual({});
    expect(r.stream.some((b) => b.hidden)).toBe(false);
  });

  it('compaction still prunes for free when pruning is enabled (what the re-use gate lets go)', () => {
    const r = render(warmAndFull(), { profile: small, now: 0, prune: { reuse: false } });
    expect(r.decisions.some((d) => d.type === 'compact')).toBe(true);
    expect(r.decisions.some((d) => d.type === 'prune')).toBe(true);
  });
});

describe('the prune notice', () => {
  it('is recallable by its path, like every block of the stream', () => {
    let s = grow(4, 5, 3000);
    s = render(s, { now: 0 }).state;
    s = startTurn(finalAnswer(s), 'Task 5');
    // Every Read is the newest text of its file: without re-use weighing they go (the windows alone).
    const r = render(s, { now: 10 * 60_000, prune: { reuse: false } });
    expect(r.stream.some((b) => b.path === 'notices/prune')).toBe(true);
    expect(recall(r.state, 'notices/prune')).toEqual({ type: 'text', text: PRUNE_NOTICE });
    const answer = handleRecall({ path: 'notices/prune' }, { state: r.state });
    expect(answer).toMatchObject({ is_error: false, content: PRUNE_NOTICE });
  });
});

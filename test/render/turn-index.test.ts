/**
 * Issue 13, item 12: the turn index is real. After compaction, recall("turns/N")
 * lists the exact paths turn N held (recallable one by one), and the summary
 * names those indexes.
 */
import { describe, expect, it } from 'vitest';
import { PathNotFoundError } from '../../src/errors.js';
import { customProfile } from '../../src/models/profiles.js';
import { recall } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { MemoryPayloadStore } from '../../src/recall/memory.js';
import { handleRecall } from '../../src/recall/recall-tool.js';
import { recordState } from '../../src/recall/record.js';
import { startTurn } from '../../src/timeline/edit.js';
import { turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

const small = customProfile('test-small', { contextWindow: 12_000, minCacheableTokens: 1024, prices: { input: 3 } });

function compacted(): TimelineState {
  let s = newSession();
  for (let t = 1; t <= 10; t++) {
    s = startTurn(s, `Task ${t}`);
    for (let r = 0; r < 3; r++) s = toolRound(s, 1, 1200);
    if (t < 10) s = finalAnswer(s);
  }
  return render(s, { profile: small, prune: { enabled: false }, now: 0 }).state;
}

describe('the turn index', () => {
  const state = compacted();
  const summary = state.summaries[0]!;

  it('is named by the summary', () => {
    for (let t = summary.fromTurn; t <= Math.min(summary.toTurn, summary.fromTurn + 5); t++) {
      expect(summary.text).toContain(`recall("turns/${t}")`);
    }
    expect(summary.text).toContain(`(${summary.paths.length} blocks in all)`);
  });

  it('recall("turns/N") lists every path the turn held, each recallable', () => {
    const index = recall(state, `turns/${summary.fromTurn}`);
    expect(index.type).toBe('text');
    const text = (index as { text: string }).text;
    const turn = state.turns[summary.fromTurn - 1]!;
    const held = [...turnBlocks(turn)].map((b) => b.path);
    expect(held.length).toBeGreaterThan(0);
    const listed = text
      .split('\n')
      .slice(1)
      .map((l) => l.split(' · ')[0]);
    expect(listed).toEqual(held);
    for (const path of held) {
      expect(summary.paths).toContain(path);
      expect(text).toContain(`${path} · `);
      expect(() => recall(state, path)).not.toThrow();
    }
    expect(text).toMatch(/summarized \(summaries\/1\)/);
  });

  it('is answered by the recall tool from the state, and from a store alone', () => {
    const fromState = handleRecall({ path: 'turns/1' }, { state });
    expect(fromState.is_error).toBe(false);
    expect(fromState.content).toContain('turns/1/user/0');
    const store = new MemoryPayloadStore();
    recordState(store, state);
    const fromStore = handleRecall({ path: 'turns/1/' }, { store });
    expect(fromStore.is_error).toBe(false);
    expect(fromStore.content).toContain('turns/1/user/0');
  });

  it('names the turn count for a turn that does not exist', () => {
    expect(() => recall(state, 'turns/99')).toThrow(PathNotFoundError);
    expect(() => recall(state, 'turns/99')).toThrow(/the session has 10/);
  });
});

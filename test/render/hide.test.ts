import { describe, expect, it } from 'vitest';
import { HideRefusedError } from '../../src/errors.js';
import { editableZoneStart, hideBlock, recall } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import { findBlock } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { newSession, text, toolRound } from '../helpers/build.js';

/** One turn of `rounds` rounds, each rendered warm 5 s apart; results of `size` chars. */
function warm(rounds: number, size = 3000): { state: TimelineState; at: number } {
  let s = startTurn(newSession(), 'Refactor the cache module');
  let at = 0;
  for (let r = 0; r < rounds; r++) {
    s = render(s, { now: (at += 5000) }).state;
    s = toolRound(s, 1, size);
  }
  return { state: render(s, { now: (at += 5000) }).state, at };
}

const resultPath = (s: TimelineState, round: number) => s.turns[0]!.rounds[round - 1]!.results[0]!.path;

describe('hideBlock', () => {
  it('hides a block in the editable zone behind a note naming its path and size; recall returns it byte-identical', () => {
    const { state, at } = warm(8);
    const path = resultPath(state, 7);
    const { state: next, decision } = hideBlock(state, path, { now: at + 1000, note: 'superseded by a newer read', expectedRemaining: 30 });
    expect(decision.type).toBe('hide');
    const r = render(next, { now: at + 2000 });
    const shown = r.stream.find((b) => b.path === path)!;
    expect(shown.hidden).toBe('agent');
    const note = JSON.stringify(shown.param);
    expect(note).toContain(path);
    expect(note).toContain('3,000 chars');
    expect(note).toContain('superseded by a newer read');
    expect(JSON.stringify(recall(next, path))).toBe(JSON.stringify(findBlock(state, path)!.param));
  });

  it('refuses a hide outside the editable zone with a typed error that says why', () => {
    const { state, at } = warm(8);
    const zone = editableZoneStart(state, { now: at + 1000 });
    expect(zone.path).toBe(resultPath(state, 5));
    const path = resultPath(state, 2);
    let err: unknown;
    try {
      hideBlock(state, path, { now: at + 1000 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HideRefusedError);
    expect((err as HideRefusedError).reason).toBe('outside_editable_zone');
    expect((err as Error).message).toContain('re-bill the cached prefix');
  });

  it('defers a hide outside the zone when asked, and applies it at the next cold window', () => {
    const { state, at } = warm(8);
    const path = resultPath(state, 2);
    const { state: next, decision } = hideBlock(state, path, { now: at + 1000, defer: true });
    expect(decision.type).toBe('defer');
    expect(next.deferred).toEqual([{ path }]);
    // Warm: nothing changes.
    const warmR = render(toolRound(next), { now: at + 6000 });
    expect(warmR.state.hidden[path]).toBeUndefined();
    // Cold: applied.
    const coldR = render(toolRound(warmR.state), { now: at + 20 * 60_000 });
    expect(coldR.state.hidden[path]?.reason).toBe('agent');
    expect(coldR.state.deferred).toEqual([]);
  });

  it('prices a hide: a small one that does not pay back is deferred unless forced', () => {
    const { state, at } = warm(8, 120);
    const path = resultPath(state, 6);
    const gated = hideBlock(state, path, { now: at + 1000, expectedRemaining: 2 });
    expect(gated.decision.type).toBe('defer');
    expect(gated.decision.type === 'defer' && gated.decision.price!.rewrite).toBeGreaterThan(0);
    expect(gated.state.hidden[path]).toBeUndefined();
    const forced = hideBlock(state, path, { now: at + 1000, expectedRemaining: 2, force: true });
    expect(forced.decision.type).toBe('hide');
  });

  it('keeps the prefix before the zone byte-stable', () => {
    const { state, at } = warm(8);
    const before = render(state, { now: at + 1000 });
    const zone = editableZoneStart(before.state, { now: at + 2000 });
    const { state: next } = hideBlock(before.state, resultPath(state, 7), { now: at + 2000, force: true });
    const after = render(toolRound(next), { now: at + 3000 });
    // Every block up to the zone start is the same object: nothing above it is re-billed.
    for (let i = 0; i <= zone.index; i++) expect(after.stream[i]).toBe(before.stream[i]);
  });

  it('hides a tool_use input without breaking its pair', () => {
    let s = startTurn(newSession(), 'write it');
    s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_w', name: 'Edit', input: { path: 'a.ts', old: 'x', new: text('big', 4000) } }]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_w', content: 'ok' }]);
    s = render(s, { now: 0 }).state;
    const { state: next } = hideBlock(s, 'turns/1/rounds/1/calls/toolu_w', { now: 1000, force: true });
    const r = render(next, { now: 2000 });
    const call = r.stream.find((b) => b.id === 'toolu_w' && b.kind === 'call')!;
    expect(call.param).toMatchObject({ type: 'tool_use', id: 'toolu_w', name: 'Edit' });
    expect(validateRequest(toAnthropic(r))).toBeNull();
  });

  it('refuses thinking blocks, envelope blocks and unknown paths', () => {
    const { state, at } = warm(3);
    const reason = (path: string) => {
      try {
        hideBlock(state, path, { now: at });
      } catch (e) {
        return (e as HideRefusedError).reason;
      }
      return 'none';
    };
    expect(reason('turns/1/rounds/3/response/0')).toBe('not_hideable');
    expect(reason('envelope/instructions/0')).toBe('not_hideable');
    expect(reason('turns/9/rounds/1/results/nope')).toBe('unknown_path');
  });

  it('after a hide the next render bridges to the newest entry still valid', () => {
    const { state, at } = warm(8);
    const { state: next } = hideBlock(state, resultPath(state, 7), { now: at + 1000, force: true });
    const r = render(toolRound(next), { now: at + 2000 });
    expect(r.plan.bust).toBe(false);
    expect(r.plan.read).toBeDefined();
  });
});

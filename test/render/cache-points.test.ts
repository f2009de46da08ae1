import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { positionsOf } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import { resolveTtls } from '../../src/render/options.js';
import { TtlOrderError } from '../../src/errors.js';
import { appendResponse, appendToolResults, setTail, startTurn } from '../../src/timeline/edit.js';
import { turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, session, toolRound } from '../helpers/build.js';

/** The expected points, computed from the state (not from the stream the renderer built). */
function expected(state: TimelineState, offset = 4): Record<number, string | undefined> {
  const turn = state.turns.at(-1)!;
  const n = turn.rounds.length + 1;
  const prev = state.turns.at(-2);
  const lastOf = (blocks: Iterable<{ path: string; param: { type: string } }>) => {
    const list = [...blocks].filter((b) => b.param.type !== 'thinking' && b.param.type !== 'redacted_thinking');
    return list.at(-1)?.path;
  };
  const round = turn.rounds[n - offset - 1];
  const points: Record<number, string | undefined> = {
    1: 'envelope/skills',
    2: prev ? lastOf(turnBlocks(prev)) : undefined,
    3: n - offset >= 1 && round ? lastOf([...round.response, ...round.results]) : undefined,
    4: lastOf(turnBlocks(turn)),
  };
  // ⓪ takes the last tool only while ①–④ leave a slot free.
  const used = new Set(Object.values(points).filter((p) => p !== undefined)).size;
  return { 0: used < 4 ? 'envelope/tools/Edit' : undefined, ...points };
}

/**
 * The points of a state rendered once before (the conversation's usual path: a render of a history with no previous
 * render is a lost state's, whose ① and ③ are guesses; test/replay/lost-state-read.test.ts).
 */
function pointsByLabel(state: TimelineState, offset?: number) {
  const options = offset === undefined ? { now: 0 } : { now: 0, preTailOffset: offset };
  const r = render(render(state, options).state, options);
  const out: Record<number, string | undefined> = { 0: undefined, 1: undefined, 2: undefined, 3: undefined, 4: undefined };
  for (const p of r.cachePoints) for (const l of p.labels) out[l] = p.path;
  return { out, r };
}

describe('placeCachePoints', () => {
  for (const turns of [1, 2, 3]) {
    for (let done = 0; done <= 8; done++) {
      it(`places ①②③④ for turn ${turns}, round ${done + 1}`, () => {
        const rounds = Array.from({ length: turns }, (_, i) => (i === turns - 1 ? done : 3 + i));
        const state = session(rounds);
        const { out, r } = pointsByLabel(state);
        expect(out).toEqual(expected(state));
        expect(r.cachePoints.length).toBeLessThanOrEqual(4);
        expect(r.round).toBe(done + 1);
        expect(r.turn).toBe(turns);
      });
    }
  }

  it('guesses ① and ③ for a history rendered without a previous render (a lost state), once', () => {
    const state = session([30, 2]);
    const lost = render(state, { now: 0 });
    const positions = positionsOf(lost.stream);
    const envelope = lost.stream.findLastIndex((b) => b.segment === 'envelope');
    const one = lost.cachePoints.find((p) => p.labels.includes(1))!;
    const two = lost.cachePoints.find((p) => p.labels.includes(2))!;
    const three = lost.cachePoints.find((p) => p.labels.includes(3))!;
    // ① reads the window right past the envelope, its entry included, counted in blocks (this history has runs of
    // parallel calls: 19 positions would be more blocks); ③ the window just below ②'s.
    expect(one.moved).toBe('bridge');
    expect(one.index - envelope).toBe(lost.profile.lookback - 1);
    expect(positions[one.index]! - positions[envelope]!).toBeLessThan(lost.profile.lookback - 1);
    expect(three.moved).toBe('bridge');
    expect(positions[two.index]! - positions[three.index]!).toBe(lost.profile.lookback);
    expect(lost.cachePoints.length).toBeLessThanOrEqual(4);
    // The next render has the ledger: the usual points.
    expect(pointsByLabel(state).out).toEqual(expected(state));
  });

  it('after a lost state, ① stays within lookback blocks of the envelope in a history of parallel calls (a run is one position on the Claude API, a block each elsewhere)', () => {
    let state = startTurn(newSession(), 'go');
    for (let i = 0; i < 12; i++) state = toolRound(state, 3);
    state = finalAnswer(state);
    state = startTurn(state, 'next');
    for (let i = 0; i < 2; i++) state = toolRound(state, 3);
    const lost = render(state, { now: 0 });
    const envelope = lost.stream.findLastIndex((b) => b.segment === 'envelope');
    const one = lost.cachePoints.find((p) => p.labels.includes(1))!;
    expect(one.moved).toBe('bridge');
    expect(one.index).toBeGreaterThan(envelope);
    expect(one.index - envelope).toBeLessThanOrEqual(lost.profile.lookback - 1);
    expect(lost.cachePoints.length).toBeLessThanOrEqual(4);
  });

  it('honours the pre-tail offset option', () => {
    const state = session([7]);
    expect(pointsByLabel(state, 2).out).toEqual(expected(state, 2));
    expect(pointsByLabel(state, 6).out[3]).toBe(expected(state, 6)[3]);
    expect(pointsByLabel(state, 0).out[3]).toBeUndefined();
  });

  it('moves a point off a thinking block to the nearest markable block before it', () => {
    let s = startTurn(newSession(), 'go');
    s = appendResponse(s, [
      { type: 'text', text: 'Thinking about it.' },
      { type: 'thinking', thinking: 'hmm', signature: 's' },
    ]);
    // The turn ended on a thinking block: the next turn's ② must not sit on it.
    s = startTurn(s, 'next');
    const r = render(s, { now: 0 });
    const two = r.cachePoints.find((p) => p.labels.includes(2))!;
    expect(two.path).toBe('turns/1/rounds/1/response/0');
    expect(two.moved).toBe('unmarkable');
    for (const p of r.cachePoints) expect(r.stream[p.index]!.markable).toBe(true);
  });

  it('collapses points that fall on one block into one marker', () => {
    const s = startTurn(newSession(), 'hello');
    const r = render(s, { now: 0 });
    // ① on the envelope, ④ on the user message; no ②/③ in the first rounds of turn 1, so ⓪ takes a free slot.
    expect(r.cachePoints.map((p) => p.labels)).toEqual([[0], [1], [4]]);
    const state = session([4]);
    // Round 5: ③ is the last block of round 1; distinct from ④.
    expect(render(state, { now: 0 }).cachePoints.map((p) => p.labels)).toEqual([[0], [1], [3], [4]]);
    // All four taken: no ⓪.
    expect(render(session([2, 5]), { now: 0 }).cachePoints.map((p) => p.labels)).toEqual([[1], [2], [3], [4]]);
  });

  it('never marks the tail, which comes last', () => {
    let s = session([2, 3]);
    s = setTail(s, [
      { type: 'text', text: 'budget: 41% left' },
      { type: 'text', text: 'time: 12:00' },
    ]);
    const r = render(s, { now: 0 });
    expect(r.tailStart).toBe(r.stream.length - 2);
    for (const p of r.cachePoints) expect(p.index).toBeLessThan(r.tailStart);
    expect(r.stream.slice(r.tailStart).every((b) => b.segment === 'tail')).toBe(true);
  });

  it('applies per-point TTLs and rejects a 1h point after a 5m one with a typed error', () => {
    const s = session([2, 5]);
    const r = render(s, { now: 0, ttl: { envelope: '1h', previousTurn: '1h' } });
    expect(r.cachePoints.map((p) => p.ttl)).toEqual(['1h', '1h', '5m', '5m']);
    expect(() => render(s, { now: 0, ttl: { tail: '1h' } })).toThrow(TtlOrderError);
    expect(() => resolveTtls({ envelope: '5m', preTail: '1h' })).toThrowErrorMatchingInlineSnapshot(
      `[TtlOrderError: ttl.preTail is '1h' but ttl.previousTurn before it is '5m': a ttl='1h' cache point must not come after a ttl='5m' one (the API answers 400). Give earlier points the longer TTL.]`,
    );
  });

  it('never places more than 4 markers, none on unmarkable blocks, for random sessions', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 8 }), (rounds, offset) => {
        const r = render(session(rounds), { now: 0, preTailOffset: offset });
        expect(r.cachePoints.length).toBeLessThanOrEqual(4);
        const idx = r.cachePoints.map((p) => p.index);
        expect([...idx].sort((a, b) => a - b)).toEqual(idx);
        expect(new Set(idx).size).toBe(idx.length);
        for (const p of r.cachePoints) expect(r.stream[p.index]!.markable).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('bridges to the previous ④ when a round adds more than 19 positions', () => {
    let s = session([3]);
    const first = render(s, { now: 0 });
    s = appendResponse(first.state, [
      ...Array.from({ length: 24 }, (_, i) => ({ type: 'text' as const, text: `step ${i}` })),
      { type: 'tool_use', id: 'toolu_wide', name: 'Read', input: { path: 'a' } },
    ]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_wide', content: 'ok' }]);
    const second = render(s, { now: 1000 });
    const prevFour = first.cachePoints.find((p) => p.labels.includes(4))!;
    const bridge = second.cachePoints.find((p) => p.moved === 'bridge');
    expect(bridge?.path).toBe(prevFour.path);
    expect(bridge?.labels).toEqual([3]);
  });

  it('bridges across a 25-call fan-out too, whether or not the provider collapses tool runs', () => {
    let s = session([3]);
    const first = render(s, { now: 0 });
    s = appendResponse(
      first.state,
      Array.from({ length: 25 }, (_, i) => ({ type: 'tool_use' as const, id: `toolu_fan_${i}`, name: 'Read', input: { path: `f${i}` } })),
    );
    s = appendToolResults(
      s,
      Array.from({ length: 25 }, (_, i) => ({ type: 'tool_result' as const, tool_use_id: `toolu_fan_${i}`, content: `file ${i}` })),
    );
    const second = render(s, { now: 1000 });
    const prevFour = first.cachePoints.find((p) => p.labels.includes(4))!;
    expect(second.cachePoints.find((p) => p.moved === 'bridge')?.path).toBe(prevFour.path);
    expect(second.plan.read?.entry).toBe(prevFour.path);
  });

  it('does not bridge when the previous entries went cold', () => {
    let s = session([3]);
    const first = render(s, { now: 0 });
    s = appendResponse(
      first.state,
      Array.from({ length: 24 }, (_, i) => ({ type: 'text' as const, text: `s${i}` })),
    );
    const r = render(s, { now: 10 * 60_000 });
    expect(r.cachePoints.some((p) => p.moved === 'bridge')).toBe(false);
  });

  it('places ② on the previous turn even when the current turn has no rounds yet', () => {
    let s = session([2]);
    s = finalAnswer(s);
    s = startTurn(s, 'and now the docs');
    const { out } = pointsByLabel(s);
    expect(out[2]).toBe('turns/1/rounds/3/response/0');
    expect(out[4]).toBe('turns/2/user/0');
    s = toolRound(s);
    expect(pointsByLabel(s).out).toEqual(expected(s));
  });
});

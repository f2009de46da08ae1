/**
 * A long open turn's rounds are built when first read (edit.ts turnWithRound): a tool loop edits its open turn two
 * or three times a request (the response, its results, the render's fold of a sent tail on models that bind
 * thinking) and reads only the state it renders, so the states between are handed out without a copy of every
 * round (issue 14: three 40 KB copies a request at 5,000 rounds, now one). What a caller sees is the same: an own,
 * enumerable, frozen `rounds` array with the rounds the state was made with, the same array on every read, in
 * the same key order, whenever and in whatever order the states are read.
 */
import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/render.js';
import { appendResponse, appendRound, appendToolResults, roundCountOf, roundOf, setTail, startTurn } from '../../src/timeline/edit.js';
import type { Round, TimelineState, Turn } from '../../src/timeline/types.js';
import { deepFrozen, newSession, resetToolIds, toolResponse } from '../helpers/build.js';

const lastTurn = (s: TimelineState): Turn => s.turns.at(-1)!;

/** A response with one call, and its result. */
function respond(s: TimelineState, text: string): { responded: TimelineState; answered: TimelineState } {
  const response = toolResponse(1);
  const responded = appendResponse(s, response);
  const id = (response.find((b) => b.type === 'tool_use') as { id: string }).id;
  return { responded, answered: appendToolResults(responded, [{ type: 'tool_result', tool_use_id: id, content: text }]) };
}

/** An open turn of `n` answered rounds, every state read as it is made (built: the usual arrays). */
function longTurn(n: number, model = 'claude-sonnet-4-6'): TimelineState {
  let s = startTurn(newSession(model), 'start');
  for (let i = 0; i < n; i++) s = respond(s, `r${i}`).answered;
  return s;
}

/** What a turn's rounds hold, for comparing without identity: index, results' texts, open ids. */
const shape = (rounds: readonly Round[]) => rounds.map((r) => [r.index, r.results.map((b) => (b.param as { content?: unknown }).content), r.open.length]);

describe('a long open turn edited without reading its rounds', () => {
  it('builds the rounds on first read, once: the same frozen array on every read, own and enumerable, keys in order', () => {
    const base = longTurn(40);
    const { responded, answered } = respond(base, 'new');
    const turn = lastTurn(answered);
    // Not a plain data property while unread: the edits made no copy of the 40 rounds.
    expect(Object.getOwnPropertyDescriptor(turn, 'rounds')?.get).toBeTypeOf('function');
    expect(roundCountOf(turn)).toBe(41);
    expect(roundOf(turn, 40)!.results.length).toBe(1);
    const rounds = turn.rounds;
    expect(turn.rounds).toBe(rounds);
    expect(Object.isFrozen(rounds)).toBe(true);
    expect(Object.isFrozen(turn)).toBe(true);
    expect(deepFrozen(answered.turns)).toBe(true);
    expect(Object.keys(turn)).toEqual(['index', 'user', 'rounds']);
    expect(rounds.slice(0, 40).every((r, i) => r === base.turns.at(-1)!.rounds[i])).toBe(true);
    expect(shape(rounds).at(-1)).toEqual([41, ['new'], 0]);
    // The state between the two edits, read after the later one was built: its own rounds (the call still open).
    expect(shape(lastTurn(responded).rounds).at(-1)).toEqual([41, [], 1]);
    expect(lastTurn(responded).rounds[39]).toBe(rounds[39]);
    // A copy by spread is a plain turn with the same rounds; JSON is as for a built turn.
    expect({ ...turn }.rounds).toBe(rounds);
    expect(JSON.stringify(turn)).toBe(JSON.stringify({ index: turn.index, user: turn.user, rounds }));
  });

  it('keeps every state as it was made, read in any order, after branches and long chains of unread edits', () => {
    const base = longTurn(20, 'claude-sonnet-5-5');
    const states: { state: TimelineState; expected: unknown }[] = [];
    // Three branches from the same state, each a chain of 30 edits nobody reads until the end (deeper than the
    // pending edits kept: some are built on the way), a tail set between requests.
    const expected: unknown[][] = [];
    for (let b = 0; b < 3; b++) {
      let s = base;
      const want = shape(base.turns.at(-1)!.rounds);
      expected.push(want);
      for (let i = 0; i < 15; i++) {
        const { responded, answered } = respond(s, `b${b}-${i}`);
        want.push([21 + i, [], 1]);
        states.push({ state: responded, expected: structuredClone(want) });
        want[want.length - 1] = [21 + i, [`b${b}-${i}`], 0];
        states.push({ state: answered, expected: structuredClone(want) });
        s = setTail(answered, `tail ${b}-${i}`);
      }
    }
    // Read newest first, then oldest first: each state's own rounds either way.
    for (const x of [...states].reverse()) expect(shape(lastTurn(x.state).rounds)).toEqual(x.expected);
    for (const x of states) expect(shape(lastTurn(x.state).rounds)).toEqual(x.expected);
    expect(shape(base.turns.at(-1)!.rounds)).toEqual(shape(longTurn(20, 'claude-sonnet-5-5').turns.at(-1)!.rounds));
  });

  it('renders a tool loop on a model that binds thinking (the fold edits the turn too) as with every state read', () => {
    const run = (readAll: boolean): string[] => {
      resetToolIds();
      let s = startTurn(newSession('claude-sonnet-5-5'), 'start');
      const requests: string[] = [];
      for (let i = 0; i < 40; i++) {
        s = setTail(s, `clock ${i}`);
        const r = render(s, { now: 1_000 * i });
        requests.push(JSON.stringify(r.stream.map((b) => b.param)));
        const { responded, answered } = respond(r.state, `r${i}`);
        if (readAll) JSON.stringify([responded.turns, r.state.turns]);
        s = answered;
      }
      return requests;
    };
    expect(run(false)).toEqual(run(true));
  });

  it('is read as it was made through appendRound, immer and a copy that keeps the turn’s other properties', () => {
    const base = longTurn(30);
    const response = toolResponse(1);
    const id = (response.find((b) => b.type === 'tool_use') as { id: string }).id;
    const s = appendRound(base, response, [{ type: 'tool_result', tool_use_id: id, content: 'fused' }]);
    expect(shape(lastTurn(s).rounds).at(-1)).toEqual([31, ['fused'], 0]);
    // immer (the prune notice, mapping's cuts) drafts the state: the pending turn reads as an array there.
    const drafted = produce(s, (draft) => {
      draft.pruneNotice = true;
    });
    expect(lastTurn(drafted).rounds).toBe(lastTurn(s).rounds);
    // A copy with every own property (immer's strict copy): `rounds` a plain value there, the pending edits not read.
    const turn = lastTurn(respond(base, 'x').answered);
    const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(turn);
    const other = base.turns.at(-1)!.rounds.slice(0, 3);
    descriptors.rounds = { value: other, enumerable: true, writable: false, configurable: false };
    const copy = Object.create(Object.prototype, descriptors) as Turn;
    expect(copy.rounds).toBe(other);
    expect(roundCountOf(copy)).toBe(3);
    expect(roundOf(copy, 2)).toBe(other[2]);
  });
});

/**
 * The payloads superseded after a round, for a caller that wants only visible ones (the prune pass: reuse.ts
 * `supersededAfter` with `minChars`): after a write, the results of file-less calls are stale again, and those it
 * finds visible in the state's hidden set are handed to `only` as such (its second argument), so the caller does not
 * look them up again. A hidden result is never handed over as visible: not when the walk meets it first, and not
 * when it was seen visible against an earlier set and this set hid it since; and a payload replaced since (not a
 * file-less call's result) is left for the caller to look up.
 */
import { describe, expect, it } from 'vitest';
import { withHidden } from '../../src/render/hidden-set.js';
import { hiddenRecord } from '../../src/render/notes.js';
import { supersededAfter } from '../../src/render/reuse.js';
import { appendResponse, appendToolResults } from '../../src/timeline/edit.js';
import { hiddenSetOf } from '../../src/timeline/hidden.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, lines, oneTurnTrace } from '../helpers/one-turn-trace.js';
import { applyEvent } from '../helpers/trace-events.js';

const CALLS: Call[] = [
  ['Bash', { command: 'ls -la' }, lines('ls', 40)],
  ['Bash', { command: 'git log' }, lines('log', 40)],
  ['Bash', { command: 'env' }, lines('env', 40)],
  ['Read', { file_path: '/repo/b.ts' }, lines('bee', 40)],
  ['Read', { file_path: '/repo/b.ts' }, lines('bee two', 40)],
  ['Edit', { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b' }, 'The file was updated.'],
];
const LS = 'turns/1/rounds/1/results/toolu_0';
const LOG = 'turns/1/rounds/2/results/toolu_1';
const ENV_OUT = 'turns/1/rounds/3/results/toolu_2';
/** The first Read of b.ts, replaced by the second after round 4. */
const READ = 'turns/1/rounds/4/results/toolu_3';
const MIN_CHARS = 200;

/** The state after every call of CALLS (each request's response appended, no render; the turn left open). */
function session(): TimelineState {
  const at = { model: 'claude-sonnet-4-6', options: {}, now: 0, shift: 0, seen: new Set<string>() };
  let state: TimelineState | undefined;
  for (const e of parseTrace(oneTurnTrace(CALLS)).slice(0, -1)) {
    if (e.type === 'assistant') state = appendResponse(state!, e.content as never, e.at);
    else state = applyEvent(state, e, at);
  }
  return state!;
}

/** `state` with one more round per call (ids `toolu_<tag><i>`), as the session's next requests append them. */
function extend(state: TimelineState, calls: readonly Call[], tag: string): TimelineState {
  let s = state;
  calls.forEach(([name, input, result], i) => {
    const id = `toolu_${tag}${i}`;
    s = appendResponse(s, [{ type: 'tool_use', id, name, input }] as never, 1_000 * i);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: result }] as never, [], 1_000 * i + 500);
  });
  return s;
}

/** supersededAfter `after` (default: round 4, before the write) for a caller that wants visible payloads; what `only` was told. */
function ask(state: TimelineState, after = 4): { out: string[]; told: Map<string, boolean> } {
  const hidden = hiddenSetOf(state);
  const told = new Map<string, boolean>();
  const out = supersededAfter(
    state,
    after,
    (path, visible) => {
      told.set(path, visible);
      return visible || !hidden.has(path);
    },
    MIN_CHARS,
  );
  return { out: [...out], told };
}

describe('supersededAfter tells the caller which results it found visible', () => {
  it('the visible results of file-less calls a write made stale, never a hidden one', () => {
    const state = session();
    const first = ask(state);
    expect(first.out).toEqual([LS, LOG, ENV_OUT, READ]);
    expect(first.told.get(LS)).toBe(true);
    expect(first.told.get(LOG)).toBe(true);

    expect(first.told.get(READ)).toBe(false);

    // A set made from that one hides `git log`'s result (seen visible before, hidden since) and the replaced Read.
    const later = withHidden(state, [hiddenRecord(state, LOG, 'economy'), hiddenRecord(state, READ, 'economy')]);
    const second = ask(later);
    expect(second.out).toEqual([LS, ENV_OUT]);
    expect(second.told.get(READ)).toBe(false);
    expect(second.told.get(LOG)).not.toBe(true);
    expect(second.told.get(LS)).toBe(true);

    // A state whose set was not made from it (a plain copy): each result is looked up, the hidden one not told visible.
    const copy = { ...later, hidden: { ...later.hidden } };
    const third = ask(copy);
    expect(third.out).toEqual([LS, ENV_OUT]);
    expect(third.told.get(LOG)).not.toBe(true);
  });

  it('a command run again: its new result, not the one seen before; and after a roll-back, the one taken back to', () => {
    const base = session();
    ask(base); // `ls -la`'s first result seen visible
    const again: Call[] = [
      ['Bash', { command: 'ls -la' }, lines('ls two', 40)],
      ['Edit', { file_path: '/repo/a.ts', old_string: 'b', new_string: 'c' }, 'The file was updated.'],
    ];
    const rerun = extend(base, again, 'r');
    const LS2 = 'turns/1/rounds/7/results/toolu_r0';
    expect(ask(rerun, 7).out).toEqual([LOG, ENV_OUT, LS2]);
    // A branch of the first state (the walk takes the re-run back): `ls -la`'s newest result is the first again.
    const branch = extend(base, [['Bash', { command: 'pwd' }, '/repo'], again[1]!], 'b');
    expect(ask(branch, 7).out).toEqual([LS, LOG, ENV_OUT]);
  });
});

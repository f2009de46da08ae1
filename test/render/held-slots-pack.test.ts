/**
 * The held stale results read from the walk's slots (prune.ts SlotRecord) when the slots are packed (live-seen.ts:
 * once most are removed, the held ones move to lower slots) and when thinking stops (a stale result after the last
 * thinking block is free, not held). A session of file-less calls run again and again, each round with a write (every
 * visible result of a file-less call is stale after it), on a model that binds thinking, that thinks only in its first
 * rounds: every request renders as a cold copy of its state does (its own walk, no slot record), decisions and bytes;
 * under two token counters in turn (one whose notes cost more than any payload, so nothing is held under it), and
 * keeping three rounds with each request rendered again after the next (the session's walk rolled back to it).
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter, type TokenCounter } from '../../src/tokens/counter.js';
import { coldCopy } from '../helpers/cold-copy.js';

const MODEL = 'claude-sonnet-5-5';
const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);

/** Characters / 4, but a hidden payload's note costs more than any payload: removing one saves nothing (none is held). */
const dearNotes: TokenCounter = {
  name: 'dear-notes',
  count: (text) => (text.startsWith('[') && text.includes('recall(') ? 1_000_000 : Math.ceil(text.length / 4)),
};

const output = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed} line ${i}: status of the build step ${i} is fine`).join('\n');

/** The paths the rule above names in `state` (see {@link run}). */
function heldByRule(state: TimelineState, keepRounds: number): string[] {
  const rounds = state.turns.flatMap((t) => t.rounds);
  const newest = new Map<string, { path: string; at: number }>();
  let lastWrite = -1;
  let lastThinking = -1;
  rounds.forEach((round, at) => {
    if (round.response.some((b) => b.param.type === 'thinking')) lastThinking = at;
    for (const b of round.response) {
      if (b.param.type !== 'tool_use') continue;
      if (b.param.name === 'Write') lastWrite = at;
      const result = round.results.find((x) => x.id === b.id);
      if (b.param.name === 'Bash' && result) newest.set(JSON.stringify(b.param.input), { path: result.path, at });
    }
  });
  return [...newest.values()]
    .filter((r) => r.at < lastWrite && r.at < lastThinking && r.at < rounds.length - keepRounds && state.hidden[r.path] === undefined)
    .map((r) => r.path);
}

/** Whether the newest round of `state` wrote a file. */
function wroteLast(state: TimelineState): boolean {
  const round = state.turns.at(-1)?.rounds.at(-1);
  return round?.response.some((b) => b.param.type === 'tool_use' && b.param.name === 'Write') === true;
}

/** `counters`: the token counter of each request, in turn, `every` requests each. */
function run(
  keys: number,
  rounds: number,
  thinkingRounds: number,
  counters: readonly TokenCounter[],
  every: number,
  keepRounds?: number,
  turnEvery?: number,
): { held: number; pruned: number } {
  const caches = counters.map((c) => new BlockTokenCache(c));
  const options: RenderOptions = {
    profile: { ...resolveProfile(MODEL), contextWindow: 1_000_000 },
    policy: 'economy',
    compact: { enabled: false },
    ...(keepRounds === undefined ? {} : { prune: { keepRounds } }),
  };
  /** The request before, rendered again after this one (a retry once the session moved on). */
  let before: { state: TimelineState; now: number } | undefined;
  let state = createTimeline({
    instructions: ['You are a coding agent. '.repeat(300)],
    tools: ['Bash', 'Write'].map((name) => ({ name, input_schema: { type: 'object' } })),
    model: MODEL,
  });
  let now = T0;
  state = startTurn(state, 'Keep the build green.', now);
  const n = { held: 0, pruned: 0 };
  for (let r = 0; r < rounds; r++) {
    now += 3_000;
    const opts = { ...options, now, tokens: caches[Math.floor(r / every) % caches.length]! };
    const rendered = render(state, opts);
    const fresh = render(coldCopy(state), opts);
    expect(rendered.decisions).toEqual(fresh.decisions);
    expect(JSON.stringify(toAnthropic(rendered))).toBe(JSON.stringify(toAnthropic(fresh)));
    const held = rendered.decisions.filter((d) => d.type === 'defer' && d.why.startsWith('preserved thinking'));
    n.held += held.length;
    // From scratch, after a write (each visible stale result is found again then), under a counter whose notes cost
    // less than the payloads: every newest result of a command, still visible, that a later write made stale and a
    // later thinking block holds, outside the rounds kept, is reported held (or pruned now).
    if (counters[0] === opts.tokens.counter && wroteLast(state)) {
      const reported = new Set(rendered.decisions.filter((d) => d.type === 'prune' || held.includes(d)).map((d) => d.path));
      expect(heldByRule(state, keepRounds ?? 1).filter((p) => !reported.has(p))).toEqual([]);
    }
    n.pruned += rendered.decisions.filter((d) => d.type === 'prune').length;
    if (keepRounds !== undefined && before) {
      const retry = { ...opts, now: before.now };
      // A copy with its own turns array: not the memo of that state's analysis, so the session's walk is rolled back.
      const again = render({ ...before.state, turns: [...before.state.turns] }, retry);
      expect(again.decisions).toEqual(render(coldCopy(before.state), retry).decisions);
    }
    before = { state, now };
    if (turnEvery !== undefined && r > 0 && r % turnEvery === 0) {
      state = appendResponse(rendered.state, [{ type: 'text', text: `Step ${r}: all green.` }] as never, now);
      now += 3_000;
      state = startTurn(state, `Check again (${r}).`, now);
      continue;
    }
    const k = r % keys;
    const thinking =
      r < thinkingRounds ? [{ type: 'thinking', thinking: `Round ${r}: check step ${k} again. `.repeat(8), signature: `sig-${r}-${'x'.repeat(40)}` }] : [];
    const uses = [{ type: 'tool_use', id: `toolu_b${r}`, name: 'Bash', input: { command: `build-status --step ${k}` } }];
    if (r >= keys) uses.push({ type: 'tool_use', id: `toolu_w${r}`, name: 'Write', input: { file_path: `/repo/out/${r}.txt`, content: `step ${r}` } as never });
    state = appendResponse(rendered.state, [...thinking, ...uses] as never, now);
    now += 3_000;
    const results = [{ type: 'tool_result', tool_use_id: `toolu_b${r}`, content: output(`run ${r}`, 12) }];
    if (r >= keys) results.push({ type: 'tool_result', tool_use_id: `toolu_w${r}`, content: 'Written.' });
    state = appendToolResults(state, results as never, [], now);
  }
  return n;
}

describe('held stale results after the slots are packed and after thinking stops', () => {
  it('eight commands run again 90 times, thinking in the first 60 rounds', () => {
    const n = run(8, 90, 60, [charCounter()], 1);
    expect(n.held).toBeGreaterThan(0);
    expect(n.pruned).toBeGreaterThan(0);
  });

  it('the same under two counters in turn, one whose notes cost more than any payload (a slot read under the other holds nothing)', () => {
    const n = run(8, 90, 60, [charCounter(), dearNotes], 5);
    expect(n.held).toBeGreaterThan(0);
  });

  it('the same over many turns (a new user message every seven rounds: the stale results in the last turn)', () => {
    const n = run(8, 90, 60, [charCounter()], 1, undefined, 7);
    expect(n.held).toBeGreaterThan(0);
  });

  it('the same keeping three rounds, each request rendered again after the next (the retry puts a round back in the window)', () => {
    const n = run(8, 60, 60, [charCounter()], 1, 3);
    expect(n.held).toBeGreaterThan(0);
  });
});

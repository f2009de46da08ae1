/**
 * The first-chance candidates with what the gate reads of them (prune-rule.ts `firstChanceFound`): each one's
 * round, as the state has it, and whether it is stale. The visible results of file-less calls a write made stale
 * are read from the re-use walk's live results (reuse.ts `LiveResult`: place and staleness found once, kept while
 * the key's newest result is unchanged), not looked up by path after every write; the gate then skips their own
 * chance (0) and weighs only the duplicates pointed at them. So: every candidate sits where it says in the state
 * rendered (not in a state its result was first seen in), and a candidate said stale has chance 0 by the re-use
 * model's whole estimates (its definition) on that state. And the payloads superseded after a round, for a caller
 * that wants visible ones (read from those live results), are those of the whole analysis. And the candidates as
 * the prune pass reads them (unordered) are their definition: every prune candidate with its first chance
 * (`pruneCandidates` filtered by reuse.ts `firstChance`), each once, for this minChars and another one asked of the
 * same states in turn (a live result's candidate is remembered per minChars).
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { passContext } from '../../src/render/context.js';
import { firstChanceCandidates, firstChanceFound, pruneCandidates } from '../../src/render/prune-rule.js';
import { render } from '../../src/render/render.js';
import { payloadChars } from '../../src/render/notes.js';
import { firstChance, reuseEstimates, supersededAfter, supersededAfterScan } from '../../src/render/reuse.js';
import { hiddenSetOf, stateWith } from '../../src/timeline/hidden.js';
import type { RenderOptions } from '../../src/render/types.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { economySession, replayRequests } from '../helpers/economy-session.js';

const REQUESTS = 200;
const MIN_CHARS = 300;
/** Another minChars the states are asked with, besides the render's. */
const OTHER_MIN_CHARS = 1_500;

/** The unordered candidates (the prune pass's form) against their definition, for minChars `m`. */
function checkUnordered(state: TimelineState, options: RenderOptions, now: number, m: number): void {
  const ctx = passContext(state, { ...options, now, prune: { minChars: m } });
  const o = ctx.options.prune;
  const thinking = ctx.profile.keepsThinking && !ctx.profile.bindsThinking;
  const found = firstChanceFound(state, o, thinking, false);
  if (!found) return;
  const paths = found.map((x) => x.block.path);
  expect(new Set(paths).size).toBe(paths.length);
  const definition = pruneCandidates(state, o, thinking).filter(firstChance(state, o.keepRounds));
  expect(paths.sort()).toEqual(definition.map((b) => b.path).sort());
}

/**
 * supersededAfter for a caller that wants visible payloads of at least MIN_CHARS (the prune pass's form, read
 * from the walk's live results) against its definition, the whole analysis: every path it gives is superseded
 * after the round, and every visible superseded payload of at least MIN_CHARS is given.
 */
function checkSuperseded(state: TimelineState): number {
  const rounds = state.turns.reduce((k, t) => k + t.rounds.length, 0);
  const hidden = hiddenSetOf(state);
  const chars = new Map<string, number>();
  for (const t of state.turns) for (const r of t.rounds) for (const b of [...r.response, ...r.results]) chars.set(b.path, payloadChars(b.param));
  let n = 0;
  for (const after of new Set([rounds - 1, rounds - 3, Math.floor(rounds / 2), 0])) {
    const got = supersededAfter(state, after, (path, visible) => visible || !hidden.has(path), MIN_CHARS);
    const scan = supersededAfterScan(state, after);
    for (const path of got) expect(scan.has(path), path).toBe(true);
    for (const path of scan) if (!hidden.has(path) && (chars.get(path) ?? 0) >= MIN_CHARS) expect(got.has(path), path).toBe(true);
    n += got.size;
  }
  return n;
}

/** Checks every request's first-chance candidates of the session; counts the stale ones and the others. */
function check(model: string, shape: 'single' | 'multi', options: RenderOptions): { stale: number; other: number; superseded: number } {
  const n = { stale: 0, other: 0, superseded: 0 };
  const each = (state: TimelineState, now: number) => {
    const ctx = passContext(state, { ...options, now });
    const o = ctx.options.prune;
    const thinking = ctx.profile.keepsThinking && !ctx.profile.bindsThinking;
    n.superseded += checkSuperseded(state);
    for (const m of [MIN_CHARS, OTHER_MIN_CHARS]) checkUnordered(state, options, now, m);
    const found = firstChanceFound(state, o, thinking);
    if (found) {
      expect(found.map((x) => x.block)).toEqual(firstChanceCandidates(state, o, thinking));
      // Whole estimates of this state (computed once for it), not the walk's lazy figures.
      const estimates = found.some((x) => x.stale) ? new Map(reuseEstimates(state)) : undefined;
      for (const x of found) {
        const round = state.turns[x.t - 1]!.rounds.find((r) => r.index === x.r);
        expect(round).toBe(x.round);
        const n0 = x.round.response.length;
        expect(x.i < n0 ? x.round.response[x.i] : x.round.results[x.i - n0]).toBe(x.block);
        if (x.stale) {
          expect(estimates!.get(x.block.path)?.p ?? 0).toBe(0);
          n.stale++;
        } else n.other++;
      }
    }
    return render(state, { ...options, now });
  };
  replayRequests(economySession('first-chance-found', model, shape, REQUESTS), model, options, each);
  return n;
}

describe('first-chance candidates: where each sits, and the stale ones have chance 0', () => {
  for (const model of ['claude-sonnet-4-6', 'claude-sonnet-5-5']) {
    for (const shape of ['single', 'multi'] as const) {
      it(`${model}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off`, () => {
        const profile = { ...resolveProfile(model), contextWindow: 1_000_000 };
        const n = check(model, shape, { profile, policy: 'economy', compact: { enabled: false }, prune: { minChars: MIN_CHARS } });
        // Not vacuous: stale results were found (after writes) and fresh candidates too.
        expect(n.stale).toBeGreaterThan(0);
        expect(n.other).toBeGreaterThan(0);
        expect(n.superseded).toBeGreaterThan(0);
      });
    }
  }
});

describe('first-chance candidates after a rewind (LastRender.sentThrough: the rounds a request before the cut sent)', () => {
  it("the prune pass's form equals its definition when the rounds sent reach past the previous render's own", () => {
    const model = 'claude-sonnet-4-6';
    const options: RenderOptions = {
      profile: { ...resolveProfile(model), contextWindow: 1_000_000 },
      policy: 'economy',
      compact: { enabled: false },
      prune: { minChars: MIN_CHARS },
    };
    let changed = 0;
    replayRequests(economySession('first-chance-sent', model, 'single', 60), model, options, (state, now) => {
      const last = state.lastRender;
      if (last && last.round > 4) {
        // As withShadowLedger marks it: the previous render was the cut request's, the rounds sent reach further.
        const cut = stateWith(state, { lastRender: { ...last, round: last.round - 3, sentThrough: { turn: last.turn, round: last.round } } });
        checkUnordered(cut, options, now, MIN_CHARS);
        const o = passContext(cut, { ...options, now }).options.prune;
        const without = stateWith(state, { lastRender: { ...last, round: last.round - 3 } });
        const paths = (s: TimelineState) => (firstChanceFound(s, o, false, false) ?? []).map((x) => x.block.path).sort();
        if (JSON.stringify(paths(cut)) !== JSON.stringify(paths(without))) changed++;
      }
      return render(state, { ...options, now });
    });
    // Not vacuous: sentThrough changed the candidates of some requests.
    expect(changed).toBeGreaterThan(0);
  });
});

/**
 * The economy policy, incrementally (issue 14): its per-request work follows
 * what the request adds, through indexes kept across requests: the re-use
 * walk (reuse.ts, continued through a long open turn; the payloads superseded
 * since the previous request found from what replaced them or made them
 * stale), the first-chance candidates (prune-rule.ts, read from the rounds
 * since the previous request and those superseded, not from every round),
 * the duplicates' copies (dedupe.ts, from the walk's index of results), the
 * stream positions (from the layout) and the hidden set (one update per
 * request, its change handed to the projection and to the duplicates index).
 * Every request of generated sessions, one long open turn and many turns,
 * rendered incrementally, must equal the render of a cold copy of the same
 * state (new turn, round and array objects, a copied hidden set, the previous
 * stream as a plain array: no per-state or per-session index can be reused),
 * stream, decisions, plan and request bytes, and the next state. And the
 * parts rewritten to read only what a request adds equal their definitions on
 * every state (a cold copy each): the first-chance candidates and the riders
 * equal the filtered scan of every round (prune-rule.ts), the payloads
 * superseded after a round equal the whole analysis's (reuse.ts), and the
 * duplicates pass equals the scan of every result it replaced
 * (test/helpers/economy-reference.ts).
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { passContext } from '../../src/render/context.js';
import { dedupe } from '../../src/render/dedupe.js';
import { candidatesFrom, firstChanceCandidates, pruneCandidates } from '../../src/render/prune-rule.js';
import { supersededAfter, supersededAfterScan } from '../../src/render/reuse.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { parseTimelinePath } from '../../src/timeline/paths.js';
import { dedupeScan, firstChanceScan } from '../helpers/economy-reference.js';
import { coldCopy as cold } from '../helpers/cold-copy.js';
import { economySession } from '../helpers/economy-session.js';
import { applyEvent } from '../helpers/trace-events.js';
import { figures } from '../helpers/reuse.js';

const REQUESTS = 260;

/** One open turn of REQUESTS rounds, or REQUESTS requests over many turns; re-reads and re-runs as real agents do. */
function session(model: string, shape: 'single' | 'multi'): TraceEvent[] {
  return economySession('economy-incremental', model, shape, REQUESTS);
}

/** Rounds before round `round` of turn `turn` (1-based), across turns. */
function ordinal(state: TimelineState, turn: number, round: number): number {
  let n = 0;
  for (let t = 1; t < turn; t++) n += state.turns[t - 1]!.rounds.length;
  return n + round;
}

/**
 * The rewritten parts equal their definitions on this state (a cold copy: its own walk, so nothing of the
 * session's indexes is read): first-chance candidates, riders, superseded payloads, duplicates.
 */
function definitions(state: TimelineState, options: RenderOptions, seen: Set<string>): void {
  const s = cold(state);
  const ctx = passContext(s, options);
  const o = ctx.options.prune;
  const thinking = ctx.profile.keepsThinking && !ctx.profile.bindsThinking;
  const all = pruneCandidates(s, o, thinking);
  const fc = firstChanceCandidates(s, o, thinking);
  if (fc) {
    expect(fc.map((b) => b.path)).toEqual(all.filter(firstChanceScan(s, o.keepRounds)).map((b) => b.path));
    if (fc.length > 0) seen.add('first chance');
  }
  for (const from of [fc?.[0], all[Math.floor(all.length / 2)], all.at(-1)]) {
    if (!from) continue;
    const at = parseTimelinePath(from.path)!;
    const after = all.filter((b) => {
      const loc = parseTimelinePath(b.path)!;
      return loc.turn > at.turn || (loc.turn === at.turn && loc.round! >= at.round!);
    });
    expect(candidatesFrom(s, o, thinking, from.path)?.map((b) => b.path)).toEqual(after.map((b) => b.path));
  }
  const n = s.turns.reduce((k, t) => k + t.rounds.length, 0);
  const prev = s.lastRender;
  const prevRounds = prev && prev.turn <= s.turns.length ? ordinal(s, prev.turn, Math.max(0, prev.round - 1)) : 0;
  for (const after of new Set([prevRounds, n - 1, n - 3, Math.floor(n / 2), 0])) {
    const got = supersededAfter(s, after);
    expect([...got]).toEqual([...supersededAfterScan(s, after)]);
    if (got.size > 0) seen.add('superseded');
  }
  const mine = dedupe(s, ctx);
  const scan = dedupeScan(cold(state), ctx);
  expect(mine.decisions).toEqual(scan.decisions);
  expect(mine.state.hidden).toEqual(scan.state.hidden);
}

/**
 * Replays the session; every request rendered incrementally and from a cold copy; every 40th request comes after
 * 10 idle minutes (cold: everything prunable is pruned). Returns what was seen (decision kinds, duplicates).
 */
function replay(model: string, shape: 'single' | 'multi', options: RenderOptions): Set<string> {
  const seen = new Set<string>();
  let state: TimelineState | undefined;
  let shift = 0;
  let now = 0;
  let requests = 0;
  for (const e of session(model, shape)) {
    if (e.type === 'assistant') {
      if (++requests % 40 === 0) shift += 10 * 60_000;
      const opts = { ...options, now: now + shift };
      definitions(state!, opts, seen);
      const r = render(state!, opts);
      const fresh = render(cold(state!), opts);
      expect(figures(r)).toEqual(figures(fresh));
      expect(r.stream).toEqual(fresh.stream);
      expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
      expect(r.state.turns).toEqual(fresh.state.turns);
      expect(r.state.hidden).toEqual(fresh.state.hidden);
      expect(r.state.deferred).toEqual(fresh.state.deferred);
      expect(r.state.pruneNotice).toBe(fresh.state.pruneNotice);
      for (const d of r.decisions) seen.add(d.type === 'prune' ? `prune:${d.reason}` : d.type);
      if (r.decisions.some((d) => d.type === 'prune' && d.price?.warm)) seen.add('warm prune');
      for (const h of Object.values(r.state.hidden)) if (h.sameAs !== undefined) seen.add(h.note.includes('part of') ? 'part' : 'duplicate');
      state = appendResponse(r.state, e.content as never, e.at + shift);
      now = e.at;
      continue;
    }
    if ('at' in e && typeof e.at === 'number') now = e.at;
    state = applyEvent(state, e, { model, options, now, shift, seen });
  }
  return seen;
}

const small = (model: string) => ({ ...resolveProfile(model), contextWindow: 40_000 });
const large = (model: string) => ({ ...resolveProfile(model), contextWindow: 1_000_000 });

describe('economy, incrementally: every request equals the render of a cold copy', () => {
  for (const model of ['claude-sonnet-4-6', 'claude-sonnet-5-5']) {
    for (const shape of ['single', 'multi'] as const) {
      it(`${model}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compacting in a 40k window`, () => {
        const seen = replay(model, shape, { profile: small(model), policy: 'economy' });
        expect(seen.has('compact')).toBe(true);
        expect(seen.has('warm prune')).toBe(true);
        expect(seen.has('prune:prune')).toBe(true);
        expect(seen.has('first chance') && seen.has('superseded')).toBe(true);
      });
      it(`${model}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off (1M window)`, () => {
        const seen = replay(model, shape, { profile: large(model), policy: 'economy', compact: { enabled: false } });
        expect(seen.has('compact')).toBe(false);
        expect(seen.has('warm prune')).toBe(true);
        expect(seen.has('prune:prune')).toBe(true);
        expect(seen.has('duplicate')).toBe(true);
        expect(seen.has('defer')).toBe(true);
        expect(seen.has('first chance') && seen.has('superseded')).toBe(true);
      });
    }
  }
});

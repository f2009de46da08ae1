/**
 * Property: on economy, every render equals a render of a cold copy of its state (new turns, rounds and arrays: its
 * own re-use walk, no memo, no index kept in step with the session), decisions and request bytes, whatever order the
 * session's states are rendered in. The indexes the economy pass keeps across requests (the re-use walk's live keys
 * and their slots, what the gate last found of each slot, the candidates' records) follow one line of states and are
 * rolled back or re-read when a state leaves it; a stale entry shows as a decision the cold copy does not make.
 *
 * Random sessions (src/synthetic/generate.ts, fewer thinking responses than the default so that stretches without
 * thinking leave stale results after the last thinking block), replayed on several lines drawn with the project's
 * Rng: a line forks from any earlier state of another (two states derived from one parent, or a rewind: the older
 * state goes on as another line), some forks add a block to every round (their rounds differ), and an earlier state
 * is rendered again now and then (a retry after the session moved on).
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { Rng } from '../../src/synthetic/rng.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { coldCopy } from '../helpers/cold-copy.js';
import { economySession, type SessionLine, type SessionRun, stepLine } from '../helpers/economy-session.js';

interface Line extends SessionLine {
  /** Its states before each request, oldest first (what a fork or a retry starts from). */
  readonly past: { state: TimelineState; next: number; now: number }[];
}

interface Run extends SessionRun {
  renders: number;
}

function renderBoth(run: Run, state: TimelineState, now: number) {
  const opts = { ...run.options, now };
  const r = render(state, opts);
  const fresh = render(coldCopy(state), opts);
  run.renders++;
  expect(r.decisions).toEqual(fresh.decisions);
  expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
  for (const d of r.decisions)
    run.kinds.add(d.type === 'defer' && d.why.startsWith('preserved thinking') ? 'held' : d.type === 'prune' ? `prune:${d.reason}` : d.type);
  return r;
}

/** Moves a line on by one request (its state before it kept for later forks and retries); false when its events are spent. */
function step(run: Run, line: Line): boolean {
  return stepLine(run, line, (state, now) => {
    line.past.push({ state, next: line.next, now });
    return renderBoth(run, state, now);
  });
}

function replay(seed: number, model: string, shape: 'single' | 'multi', window: number): Set<string> {
  const requests = 70;
  const events = economySession(`economy-cold-${seed}`, model, shape, requests, { thinkingRate: 0.4 });
  const options: RenderOptions = {
    profile: { ...resolveProfile(model), contextWindow: window },
    policy: 'economy',
    ...(window >= 1_000_000 ? { compact: { enabled: false } } : {}),
  };
  const run: Run = { events, model, options, kinds: new Set(), renders: 0 };
  const rng = new Rng(`economy-cold-lines-${seed}-${shape}`);
  const lines: Line[] = [{ state: undefined, next: 0, now: 0, past: [] }];
  let forks = 0;
  while (lines.length > 0 && run.renders < 260) {
    const line = rng.pick(lines);
    const roll = rng.next();
    if (roll < 0.06 && line.past.length > 2 && forks < 6) {
      // A fork from an earlier state of this line (a rewind, or a sibling of the state it went on from).
      forks++;
      const from = line.past[rng.int(Math.max(0, line.past.length - 12), line.past.length - 1)]!;
      lines.push({ ...from, past: [], ...(rng.chance(0.5) ? { extra: `branch ${forks}: one more block in every round.` } : {}) });
      continue;
    }
    if (roll < 0.12 && line.past.length > 1) {
      // A retry of an earlier request after the line moved on.
      const old = line.past[rng.int(Math.max(0, line.past.length - 6), line.past.length - 1)]!;
      renderBoth(run, old.state, old.now);
      continue;
    }
    if (!step(run, line)) lines.splice(lines.indexOf(line), 1);
  }
  return run.kinds;
}

describe('economy renders equal a cold render of their state, over random sessions, forks, rewinds and retries', () => {
  for (const seed of [1, 2, 3]) {
    for (const shape of ['single', 'multi'] as const) {
      it(`claude-sonnet-5-5 (binds thinking), ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off, seed ${seed}`, () => {
        const kinds = replay(seed, 'claude-sonnet-5-5', shape, 1_000_000);
        expect(kinds.has('held')).toBe(true);
      });
    }
  }
  it('claude-sonnet-5-5, many turns, compacting in a 30k window', () => {
    const kinds = replay(4, 'claude-sonnet-5-5', 'multi', 30_000);
    expect(kinds.has('compact')).toBe(true);
  });
  it('claude-sonnet-4-6 (keeps thinking, not bound), one open turn, compaction off', () => {
    const kinds = replay(5, 'claude-sonnet-4-6', 'single', 1_000_000);
    expect(kinds.has('prune:economy')).toBe(true);
  });
});

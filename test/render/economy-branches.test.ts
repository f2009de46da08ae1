/**
 * Economy renders along branches (issue 14). Most economy requests prune in the newest rounds, and the stable
 * stream's store is then rewritten in place from the first change (src/render/stream-store.ts), so the arrays an
 * earlier render was built in no longer hold its blocks: whatever that render handed out must still read as it did
 * when it was made. A generated economy session goes on, then two branches leave one state and are extended in
 * turn with the main line (each request rewrites what the others were built in; one branch's rounds have a block
 * more, so their turns and rounds start elsewhere), with retries of a request; every
 * render is compared with a from-scratch render of its state, half at once and half only at the end (its stream,
 * its state's previous stream, its request, plan and points, built when first read), and its layout (lookback
 * positions, cumulative tokens) with the plain computation over its stream.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { positions, positionsOf, prefixOf, prefixTokens } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { economySession, type SessionLine, type SessionRun, stepLine } from '../helpers/economy-session.js';
import { withoutReuse } from '../helpers/reuse.js';

const REQUESTS = 90;
/** Requests of the main line before the branches leave it. */
const FORK = 30;

function session(model: string, shape: 'single' | 'multi'): TraceEvent[] {
  return economySession('economy-branches', model, shape, REQUESTS);
}

/** What a render hands out, as text. */
function seen(r: Rendered): string {
  return JSON.stringify({
    stream: r.stream.map((b) => [b.path, b.hidden ?? null, b.tokens]),
    last: r.state.lastRender?.stream.map((b) => b.path),
    params: toAnthropic(r),
    plan: r.plan,
    cachePoints: r.cachePoints,
    firstChange: r.firstChange,
  });
}

type Line = SessionLine;

interface Run extends SessionRun {
  /** Renders not read yet, with what a from-scratch render of their state showed when they were made. */
  readonly unread: { r: Rendered; expected: string }[];
  renders: number;
}

/** Renders `state` (and a from-scratch copy of it), read now or kept for the end. */
function renderOne(run: Run, state: TimelineState, now: number): Rendered {
  const opts = { ...run.options, now };
  const fresh = render(withoutReuse(state), opts);
  const r = render(state, opts);
  const expected = seen(fresh);
  if (run.renders++ % 2 === 0) run.unread.push({ r, expected });
  else expect(seen(r)).toBe(expected);
  for (const d of r.decisions) run.kinds.add(d.type === 'prune' ? `prune:${d.reason}` : d.type);
  if (r.firstChange < (state.lastRender?.stream.length ?? 0)) run.kinds.add('changed');
  return r;
}

/** Moves a line on by one request (the events up to it, its render, its response); every fourth, a retry first. */
function step(run: Run, line: Line): boolean {
  return stepLine(run, line, (state, now) => {
    if (run.renders % 4 === 3) renderOne(run, state, now);
    return renderOne(run, state, now);
  });
}

function replay(model: string, shape: 'single' | 'multi', options: RenderOptions): Set<string> {
  const run: Run = { events: session(model, shape), model, options, kinds: new Set(), unread: [], renders: 0 };
  const main: Line = { state: undefined, next: 0, now: 0 };
  for (let i = 0; i < FORK; i++) step(run, main);
  // Two branches from one state, extended in turn with the main line.
  const a: Line = { ...main };
  const b: Line = { ...main, extra: 'Note from branch b: one more block in every round.' };
  for (let going = true; going; ) going = [step(run, main), step(run, a), step(run, b)].some(Boolean);
  for (const { r, expected } of run.unread) {
    expect(seen(r)).toBe(expected);
    const stable = r.stream.slice(0, r.tailStart);
    expect([...positionsOf(r.stream, r.tailStart)]).toEqual([...positions(stable)]);
    expect([...prefixOf(r.stream, r.tailStart)]).toEqual([...prefixTokens(stable)]);
  }
  return run.kinds;
}

describe('economy renders along branches: what each render handed out stays its own', () => {
  for (const model of ['claude-sonnet-4-6', 'claude-sonnet-5-5']) {
    for (const shape of ['single', 'multi'] as const) {
      it(`${model}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off (1M window)`, () => {
        const kinds = replay(model, shape, {
          profile: { ...resolveProfile(model), contextWindow: 1_000_000 },
          policy: 'economy',
          compact: { enabled: false },
        });
        expect(kinds.has('prune:economy') && kinds.has('changed')).toBe(true);
      });
    }
  }
  it('claude-sonnet-4-6, many turns, compacting in a 20k window', () => {
    const kinds = replay('claude-sonnet-4-6', 'multi', { profile: { ...resolveProfile('claude-sonnet-4-6'), contextWindow: 20_000 }, policy: 'economy' });
    expect(kinds.has('compact') && kinds.has('prune:economy')).toBe(true);
  });
});

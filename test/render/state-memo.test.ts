/**
 * The stable stream is memoized per state for the last few states projected (projection.ts `byState`, a bounded
 * memo held strongly instead of a WeakMap the scavenger would keep alive): a state asked again while held gets its
 * build back; any other state (another branch, or one asked again after many others) gets its own stream, the one
 * a from-scratch build gives.
 */
import { describe, expect, it } from 'vitest';
import { passContext } from '../../src/render/context.js';
import { stableStream, streamLayout } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import { startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { newSession, toolRound } from '../helpers/build.js';

/** The stream built from scratch: the same state without the previous render to reuse. */
function scratch(state: TimelineState): readonly unknown[] {
  const { lastRender: _drop, ...copy } = state;
  return [...stableStream(copy, passContext(copy, {}))];
}

/** The stream of `state` and the layout (build) it came with. */
function streamOf(state: TimelineState): { blocks: readonly unknown[]; layout: object | undefined } {
  const stream = stableStream(state, passContext(state, {}));
  return { blocks: [...stream], layout: streamLayout(stream) };
}

describe('stableStream per state', () => {
  it('gives a state asked again its build (the same layout), and each branch its own stream', () => {
    let base = startTurn(newSession(), 'start');
    for (let i = 0; i < 6; i++) base = toolRound(base, 1, 80);
    base = render(base, { now: 1_000 }).state;
    // Two branches of the same state: one more round each, with different results.
    const a = toolRound(base, 1, 90);
    const b = toolRound(base, 2, 40);
    const firstA = streamOf(a);
    const firstB = streamOf(b);
    // B's build rewrote the shared store past the branch point: A's build is read through its saved blocks, and
    // its layout once detached is kept. A rebuild would make a new build (a new layout) each time.
    const againA = streamOf(a);
    expect(streamOf(a).layout).toBe(againA.layout);
    const againB = streamOf(b);
    expect(againB.layout).toBe(firstB.layout);
    expect(againA.blocks).toEqual(firstA.blocks);
    expect(againA.blocks).toEqual(scratch(a));
    expect(againB.blocks).toEqual(scratch(b));
    expect(againA.blocks).not.toEqual(againB.blocks);
  });

  it('gives a state asked again after many others the stream a from-scratch build gives', () => {
    let s = startTurn(newSession(), 'start');
    s = toolRound(s, 1, 80);
    const early = render(s, { now: 1_000 }).state;
    const expected = scratch(early);
    streamOf(early);
    // More states projected than the memo holds.
    let t = early;
    for (let i = 0; i < 20; i++) {
      t = toolRound(t, 1 + (i % 2), 60);
      t = render(t, { now: 2_000 + i }).state;
    }
    expect(streamOf(early).blocks).toEqual(expected);
    expect(streamOf(t).blocks).toEqual(scratch(t));
  });
});

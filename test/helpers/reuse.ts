/** Helpers for the incremental-render tests: a state that cannot reuse its previous render, and a render as data. */
import type { Rendered } from '../../src/render/types.js';
import type { TimelineState } from '../../src/timeline/types.js';

/** The same state, with the previous render's stream as a plain copy: nothing of it can be reused (no layout, no chain). */
export function withoutReuse(state: TimelineState): TimelineState {
  const prev = state.lastRender;
  return prev ? { ...state, lastRender: { ...prev, stream: [...prev.stream] } } : { ...state };
}

/** A render as data, without the state (which holds the previous render's stream by identity). */
export function figures(r: Rendered): unknown {
  const { state: _s, stream, ...rest } = r;
  return { ...rest, stream: stream.map((b) => b.path) };
}

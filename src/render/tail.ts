/**
 * Pass 5 — tail append. The volatile tail (sources pool, live view) goes after
 * the last stable block, unmarked, so it never disturbs a cached prefix.
 *
 * Contract: pure; appends only; never adds a marker; the tail is always last.
 */
import type { TimelineState } from '../timeline/types.js';
import { type PassContext, tailStream } from './hide.js';
import type { StreamBlock } from './types.js';

/** Returns the full stream: the stable blocks, then the tail. */
export function appendTail(stable: readonly StreamBlock[], state: TimelineState, ctx: PassContext): StreamBlock[] {
  const tail = tailStream(state, ctx);
  return tail.length === 0 ? [...stable] : [...stable, ...tail];
}

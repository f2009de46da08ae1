/**
 * Pass 1 — prune (the freshness rule). Placeholder interface; made real below.
 */
import type { TimelineState } from '../timeline/types.js';
import type { PassContext } from './hide.js';
import type { Decision, RenderOptions } from './types.js';

export function prune(
  state: TimelineState,
  _ctx: PassContext,
  _options: RenderOptions,
): { state: TimelineState; decisions: Decision[] } {
  return { state, decisions: [] };
}

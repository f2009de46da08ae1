/**
 * Pass 2 — compact (the hard ceiling). Placeholder interface; made real below.
 */
import type { TimelineState } from '../timeline/types.js';
import type { PassContext } from './hide.js';
import type { Decision, RenderOptions } from './types.js';

/** Summary texts computed ahead (by an async summarizer), keyed by `from-to` turn range. */
export type SummaryTexts = ReadonlyMap<string, { readonly text: string; readonly by: string; readonly fallback?: string }>;

export function compact(
  state: TimelineState,
  _ctx: PassContext,
  _options: RenderOptions,
  _summaries?: SummaryTexts,
): { state: TimelineState; decisions: Decision[] } {
  return { state, decisions: [] };
}

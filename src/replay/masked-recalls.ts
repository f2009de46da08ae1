/**
 * Forced recalls of an observation-masking peer (`openai_mask10`: every tool
 * result but the N newest replaced by a placeholder, every request), counted
 * with the same rules as cachepoint's own (src/replay/recalls.ts), so a peer
 * that is cheaper because it drops what later calls need can be told apart
 * from one that is cheaper outright. The simulator does not charge peers for
 * recalls (they would need inserted rounds of their own); this count says how
 * many they would have forced, and `compareTrace` charges them to the peer
 * (src/replay/compare.ts, `peerRecalls`).
 */
import type { BlockPath, HiddenRecord, TimelineState } from '../timeline/types.js';
import { RecallTracker } from './recalls.js';
import type { ReplayedRequest } from './replay.js';

const MASK_NOTE = '[older tool output omitted]';

/** The response to `plain[i]`: the newest round of the turn that request was rendered for, as `plain[i + 1]` holds it. */
function responseOf(before: TimelineState, after: TimelineState): readonly unknown[] {
  const turn = after.turns[before.turns.length - 1];
  return turn?.rounds.at(-1)?.response.map((b) => b.param) ?? [];
}

/** The recalls one response of a masked run needs: the plain request it answers, and the masked payloads. */
export interface MaskedRecallRound {
  /** Index of the plain request whose response needs them (the recall round goes before request `index + 1`). */
  readonly index: number;
  readonly paths: readonly BlockPath[];
}

/**
 * How many forced recalls masking all but the `keep` newest tool results
 * causes on a session, per request of the trace, and which responses need them.
 *
 * @param plain the plain full-history replay (`replayAll(…, { plain: true })`)
 *
 * @example
 * const plain = await replayAll(readTrace('fixtures/fanout.jsonl'), { plain: true });
 * maskedRecalls(plain, 10); // { count, per100, rounds }
 */
export function maskedRecalls(
  plain: readonly ReplayedRequest[],
  keep: number,
): { readonly count: number; readonly per100: number; readonly rounds: readonly MaskedRecallRound[] } {
  const tracker = new RecallTracker();
  let count = 0;
  const rounds: MaskedRecallRound[] = [];
  for (let i = 0; i + 1 < plain.length; i++) {
    const state = plain[i]!.rendered.state;
    const results: string[] = [];
    for (const t of state.turns) for (const r of t.rounds) for (const b of r.results) if (b.param.type === 'tool_result') results.push(b.path);
    const hidden: Record<string, HiddenRecord> = { ...state.hidden };
    for (const path of results.slice(0, Math.max(0, results.length - keep))) hidden[path] = { path, reason: 'prune', note: MASK_NOTE, chars: 0 };
    const needs = tracker.needs({ ...state, hidden }, responseOf(state, plain[i + 1]!.rendered.state));
    count += needs.length;
    if (needs.length > 0) rounds.push({ index: i, paths: needs.map((n) => n.path) });
  }
  return { count, per100: plain.length > 0 ? (100 * count) / plain.length : 0, rounds };
}

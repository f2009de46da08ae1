/**
 * Preserved thinking after a lost conversation state (models whose profile has `bindsThinking`; sources in
 * docs/models.md, "Preserved thinking"). The API accepts a thinking block sent back only under the prefix it was
 * produced under; `prepare` keeps every tail it sent in the history (render/bind.ts foldSentTail) and makes sticky
 * hides, so that prefix is known only to the stored conversation. Thinking the stored state cannot vouch for:
 *
 * - every thinking block of the history when there is no stored state (idle expiry, the memory store's LRU,
 *   `delete`, a store that is down): the messages alone do not say which tails, hides or compactions the earlier
 *   requests sent;
 * - the thinking of a response that does not answer the request the stored state rendered last (a store that comes
 *   back with an older record after requests it never saw, a save that failed): that request's prefix is unknown.
 *
 * It is left out from the first such block on, all of it (the docs allow removing thinking blocks from the end of
 * the history, or all of them; never one between kept ones), by sticky `binding` records, so the next requests send
 * the same bytes (putting a removed block back is invalid for the thinking produced while it was gone).
 */
import { hiddenSetOf } from '../timeline/hidden.js';
import { withHidden } from '../render/hidden-set.js';
import { hiddenRecord } from '../render/notes.js';
import { isCompacted } from '../render/projection.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import type { ModelProfile } from '../models/profiles.js';
import type { Decision } from '../render/types.js';
import type { BlockPath, HiddenRecord, TimelineState } from '../timeline/types.js';

/** Where the thinking the stored state cannot vouch for starts: a round (1-based), and the block named as the change. */
export interface Unvouched {
  readonly turn: number;
  readonly round: number;
  readonly changedAt: BlockPath;
}

/**
 * The state with every visible thinking block from `from` on left out by a sticky `binding` record, and the
 * decisions that say so (cause `unknown`). Thinking the request would not send anyway is not touched: a compacted
 * stretch, and earlier turns on a model that strips them (`keepsThinking` false).
 */
export function leaveOutUnvouched(
  state: TimelineState,
  from: Unvouched,
  profile: ModelProfile,
  tokens: BlockTokenCache,
): { state: TimelineState; decisions: Decision[] } {
  const held = hiddenSetOf(state);
  const records: HiddenRecord[] = [];
  const decisions: Decision[] = [];
  const turns = state.turns;
  for (let t = Math.max(1, from.turn); t <= turns.length; t++) {
    // An earlier turn's thinking on a model that strips it is not sent (projection.ts stripsThinking).
    if (!profile.keepsThinking && t < turns.length) continue;
    const turn = turns[t - 1]!;
    for (const round of turn.rounds) {
      if ((t === from.turn && round.index < from.round) || isCompacted(state, t, round.index)) continue;
      for (const b of round.response) {
        const type = b.param.type;
        if ((type !== 'thinking' && type !== 'redacted_thinking') || held.has(b.path)) continue;
        records.push(hiddenRecord(state, b.path, 'binding'));
        decisions.push({
          type: 'prune',
          path: b.path,
          reason: 'binding',
          tokensRemoved: tokens.tokens(b.param),
          binding: { cause: 'unknown', changedAt: from.changedAt },
        });
      }
    }
  }
  return { state: withHidden(state, records), decisions };
}

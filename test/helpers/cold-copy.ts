/**
 * A state with nothing shared that a per-state or per-session index could be kept on (the renderer's memos, the re-use
 * walk's slot, the stream store): new turn, round and array objects, a copied hidden set, the previous stream a plain
 * copy. Its render is the reference an incremental render must equal.
 */
import type { TimelineState } from '../../src/timeline/types.js';

export function coldCopy(state: TimelineState): TimelineState {
  const turns = state.turns.map((t) => ({
    ...t,
    user: [...t.user],
    rounds: t.rounds.map((r) => ({ ...r, response: [...r.response], results: [...r.results], open: [...r.open] })),
  }));
  const prev = state.lastRender;
  return {
    ...state,
    turns,
    hidden: { ...state.hidden },
    ...(prev ? { lastRender: { ...prev, stream: [...prev.stream], entries: [...prev.entries] } } : {}),
  };
}

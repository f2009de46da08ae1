/**
 * A generated trace's events other than a request (envelope, user message,
 * tool results, tail, the agent's hides) applied to a timeline as the replay
 * does: the tests that render every request of a session incrementally and
 * from a copy (open-turn, economy-incremental) step through it with this.
 */
import { hideBlock } from '../../src/render/hide-block.js';
import type { RenderOptions } from '../../src/render/types.js';
import { appendToolResults, createTimeline, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';

/** The path of the tool result answering `id` (newest first). */
export function resultPath(state: TimelineState, id: string): string | undefined {
  for (let t = state.turns.length - 1; t >= 0; t--) {
    const turn = state.turns[t]!;
    for (let r = turn.rounds.length - 1; r >= 0; r--) for (const b of turn.rounds[r]!.results) if (b.id === id) return b.path;
  }
  return undefined;
}

/**
 * The state after `e` (not an `assistant` event: the caller renders the request and appends the response);
 * times shifted by `shift`, a hide deferred as the replay asks, its decision type added to `seen`.
 */
export function applyEvent(
  state: TimelineState | undefined,
  e: TraceEvent,
  at: { readonly model: string; readonly options: RenderOptions; readonly now: number; readonly shift: number; readonly seen: Set<string> },
): TimelineState | undefined {
  switch (e.type) {
    case 'envelope':
      return createTimeline({ instructions: e.instructions, tools: e.tools, ...(e.skills ? { skills: e.skills } : {}), model: at.model });
    case 'user':
      return startTurn(state!, e.content, e.at + at.shift);
    case 'tool_results': {
      const results = e.content.filter((b) => b.type === 'tool_result').map(({ duration_ms: _d, ...b }) => b);
      const texts = e.content.filter((b) => b.type === 'text');
      return appendToolResults(state!, results as never, texts as never, e.at + at.shift);
    }
    case 'tail':
      return setTail(state!, e.content);
    case 'hide': {
      const path = e.tool_use_id === undefined ? undefined : resultPath(state!, e.tool_use_id);
      if (!path) return state;
      const hidden = hideBlock(state!, path, { ...at.options, now: at.now + at.shift, defer: true, ...(e.note ? { note: e.note } : {}) });
      at.seen.add(`hide:${hidden.decision.type}`);
      return hidden.state;
    }
    default:
      return state;
  }
}

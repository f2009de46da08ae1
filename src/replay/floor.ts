/**
 * The prune floor of a session: what a policy that removes tool results could
 * cost at best, to say whether a target ratio is reachable by pruning at all.
 *
 * It prices, with the clairvoyant ideal bound (src/sim/ideal.ts), the plain
 * full-history requests of the trace with every tool result of more than
 * `minChars` characters shown in full once (in the request right after it was
 * produced, the newest message) and as a prune note in every later request.
 * That is the cheapest "see once" stream: the model reads each payload one
 * time (keepRounds 0), a note stands in from the next request on, the cache is
 * perfect, and no recall is ever charged. The envelope, the user's text, the
 * model's own blocks (text, thinking, tool inputs) are left as they are: the
 * peers send them too, and they are not the agent's to drop.
 *
 * Any policy that shows every payload at least once and prunes nothing else
 * costs at least this (longer windows keep more, forced recalls add rounds,
 * real markers read less than the ideal's any-boundary reads), so a ratio
 * below `floor ÷ best peer` is out of reach by pruning on that session.
 */
import type { MessageParam } from '../providers/anthropic-types.js';
import { payloadChars, hiddenNote } from '../render/notes.js';
import { idealBound } from '../sim/ideal.js';
import type { SimulatorOptions } from '../sim/simulator.js';
import type { SimRequest } from '../sim/types.js';

/** Tool results of more than this many characters are pruned in the floor (economy's `minChars`). */
export const FLOOR_MIN_CHARS = 300;

function pruned(message: MessageParam, minChars: number): MessageParam {
  if (typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((b) => {
    if (b.type !== 'tool_result') return b;
    const chars = payloadChars(b);
    if (chars <= minChars) return b;
    changed = true;
    const note = hiddenNote(`results/${b.tool_use_id}`, 'tool result', chars, 'economy');
    return b.is_error
      ? { type: 'tool_result' as const, tool_use_id: b.tool_use_id, content: note, is_error: true }
      : { type: 'tool_result' as const, tool_use_id: b.tool_use_id, content: note };
  });
  return changed ? ({ ...message, content } as MessageParam) : message;
}

/**
 * The requests of the floor: each plain request with every tool result before
 * its newest message replaced by a note.
 */
export function floorRequests(plain: readonly SimRequest[], minChars = FLOOR_MIN_CHARS): SimRequest[] {
  return plain.map(({ at, params }) => {
    const last = params.messages.length - 1;
    return { at, params: { ...params, messages: params.messages.map((m, i) => (i === last ? m : pruned(m, minChars))) } };
  });
}

/**
 * Dollars of the prune floor of a session (see the module comment).
 *
 * @param plain the plain full-history requests (`replayAll(…, { plain: true })`)
 *
 * @example
 * const plain = await replayAll(readTrace('fixtures/coding.jsonl'), { plain: true });
 * pruneFloor(plain.map((r) => ({ at: r.at, params: r.request })));
 */
export function pruneFloor(plain: readonly SimRequest[], options: SimulatorOptions = {}, minChars = FLOOR_MIN_CHARS): number {
  return idealBound(floorRequests(plain, minChars), options).ideal.cost;
}

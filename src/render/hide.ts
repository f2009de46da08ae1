/**
 * Pass 3 — hidden replacements. Projects the (pruned, compacted) state onto
 * the stable block stream: envelope, summaries, visible turns, with each
 * sticky hide/prune note in place of its payload (the projection itself is
 * projection.ts, shared with the other passes and the plan).
 *
 * Contract: pure; changes only the payload of blocks that have a HiddenRecord
 * (the block keeps its position, its role and, for tool_use/tool_result, its
 * id, so pairs stay valid); never reorders; never adds or drops a visible
 * block (except, on models that bind thinking, the thinking whose prefix changed: render/bind.ts). Idempotent: the same state projects to the same stream (the same
 * objects, memoized per source block).
 */
import { bindThinking } from './bind.js';
import type { Pass } from './context.js';
import { cacheStanding } from './projection.js';

/** Pass 3: the work's stream becomes the stable stream of its state. */
export const hidePass: Pass = {
  name: 'hide',
  run(work, ctx) {
    // Models that bind thinking to its prefix: thinking whose prefix changed is left out first (render/bind.ts).
    const bound = bindThinking(work, ctx);
    const { stream } = cacheStanding(bound.state, ctx);
    return { ...bound, stream, tailStart: stream.length };
  },
};

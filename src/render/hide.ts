/**
 * Pass 3 — hidden replacements. Projects the (pruned, compacted) state onto
 * the stable block stream: envelope, summaries, visible turns, with each
 * sticky hide/prune note in place of its payload (the projection itself is
 * projection.ts, shared with the other passes and the plan).
 *
 * Contract: pure; changes only the payload of blocks that have a HiddenRecord
 * (the block keeps its position, its role and, for tool_use/tool_result, its
 * id, so pairs stay valid); never reorders; never adds or drops a visible
 * block. Idempotent: the same state projects to the same stream (the same
 * objects, memoized per source block).
 */
import type { Pass } from './context.js';
import { cacheStanding } from './projection.js';

/** Pass 3: the work's stream becomes the stable stream of its state. */
export const hidePass: Pass = {
  name: 'hide',
  run(work, ctx) {
    const { stream } = cacheStanding(work.state, ctx);
    return { ...work, stream, tailStart: stream.length };
  },
};

/**
 * The five passes in the order DESIGN.md fixes, and the loop that runs them:
 *   prune → compact → hidden replacements → cache points → tail append.
 * Prune and compact make sticky decisions (they edit the state); hide projects
 * the state onto the stream, placement marks it, tail appends the volatile end.
 * `render()` runs exactly {@link PASSES}, in this order, through {@link runPasses}.
 */
import { cachePointsPass } from './cache-points.js';
import { compactPass } from './compact.js';
import { type Pass, type PassContext, type RenderWork, startWork } from './context.js';
import { hidePass } from './hide.js';
import { prunePass } from './prune.js';
import { tailPass } from './tail.js';
import type { TimelineState } from '../timeline/types.js';

/** The passes, in the order they run. */
export const PASSES: readonly Pass[] = Object.freeze([prunePass, compactPass, hidePass, cachePointsPass, tailPass]);

/** Runs `passes` in order over the state: each pass gets the work the one before returned. */
export function runPasses(passes: readonly Pass[], state: TimelineState, ctx: PassContext): RenderWork {
  let work = startWork(state);
  for (const pass of passes) work = pass.run(work, ctx);
  return work;
}

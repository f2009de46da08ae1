/**
 * Pass 5 — tail append. The volatile tail (sources pool, live view) goes after
 * the last stable block, unmarked, so it never disturbs a cached prefix.
 *
 * Contract: pure; appends only; never adds a marker (it runs after placement);
 * the tail is always last. Not idempotent by design: it runs once per render.
 */
import type { Pass } from './context.js';
import { partsOf, tailStream, withLazyStream } from './projection.js';

/** Pass 5: appends the tail's blocks to the work's stream. */
export const tailPass: Pass = {
  name: 'tail',
  run(work, ctx) {
    const tail = tailStream(work.state, ctx);
    const stable = work.stream;
    if (tail.length === 0) return { ...work, tailStart: stable.length };
    // The stream with the tail is built only when read (see withLazyStream): the plan and the mapper read the parts.
    return withLazyStream({ ...work, tailStart: stable.length }, partsOf(stable, tail));
  },
};

/**
 * The replay the slot-record tests share (held-slots, weighed-slots; prune.ts `SlotRecord`): a session whose options
 * change between requests, every render compared with a render of a cold copy of its state (its own walk, no record),
 * decisions and request bytes. Six requests with one counter, six with the next, in turn; the minChars falls from 300
 * to 240 after 100 requests (the walk then reads its live keys anew, into other slots).
 */
import { expect } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter, type TokenCounter } from '../../src/tokens/counter.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { coldCopy } from './cold-copy.js';
import { applyEvent } from './trace-events.js';

/** Characters / 4, but a hidden payload's note costs more than any payload of the session: removing one saves nothing. */
export const dearNotes: TokenCounter = {
  name: 'dear-notes',
  count: (text) => (text.startsWith('[') && text.includes('recall(') ? 1_000_000 : Math.ceil(text.length / 4)),
};

/**
 * Replays `events` on `model` with `base` options, the counters in turn (default: characters / 4, then
 * {@link dearNotes}), each render checked against a cold copy's; returns, per counter, the sum of `tally` over the
 * renders made with it.
 */
export function replayAgainstCold(
  events: readonly TraceEvent[],
  model: string,
  base: RenderOptions,
  tally: (r: Rendered) => number,
  counters = [new BlockTokenCache(charCounter()), new BlockTokenCache(dearNotes)],
): number[] {
  const sums = counters.map(() => 0);
  let state: TimelineState | undefined;
  let now = 0;
  let requests = 0;
  for (const e of events) {
    if (e.type === 'assistant') {
      requests++;
      const k = Math.floor(requests / 6) % counters.length;
      const options: RenderOptions = { ...base, now, tokens: counters[k]!, prune: { minChars: requests > 100 ? 240 : 300 } };
      const r = render(state!, options);
      const fresh = render(coldCopy(state!), options);
      expect(r.decisions).toEqual(fresh.decisions);
      expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
      sums[k]! += tally(r);
      state = appendResponse(r.state, e.content as never, e.at);
      now = e.at;
      continue;
    }
    if ('at' in e && typeof e.at === 'number') now = e.at;
    state = applyEvent(state, e, { model, options: base, now, shift: 0, seen: new Set() });
  }
  return sums;
}

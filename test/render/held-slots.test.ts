/**
 * The held stale results read from the walk's slots (prune.ts `SlotRecord`, prune-rule.ts `LiveSlots`): on a model
 * that binds thinking, the visible results of file-less calls a write made stale are held (pruning one would
 * invalidate the thinking after it), found again after every write; the prune pass keeps per slot of the walk's
 * live keys where it found each one in the stream and what removing it saves, and reports a held one from that
 * record while the slot holds the same result and the stream the same block there. The record must never be read
 * for another result or another counter: every request of a session whose options change between requests (the
 * minChars, which makes the walk read its live keys anew into other slots; a token counter under which a note
 * costs more than the payload, so removing it saves nothing and it is no candidate) renders as a cold copy of the
 * same state does (its own walk, no record), decisions and request bytes.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter, type TokenCounter } from '../../src/tokens/counter.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { coldCopy as cold } from '../helpers/cold-copy.js';
import { economySession } from '../helpers/economy-session.js';
import { applyEvent } from '../helpers/trace-events.js';

const REQUESTS = 220;

/** Characters / 4, but a hidden payload's note costs more than any payload of the session: removing one saves nothing. */
const dearNotes: TokenCounter = {
  name: 'dear-notes',
  count: (text) => (text.startsWith('[') && text.includes('recall(') ? 1_000_000 : Math.ceil(text.length / 4)),
};

const MODEL = 'claude-sonnet-5-5';

function replay(events: readonly TraceEvent[]): { held: number; heldNone: number } {
  const model = MODEL;
  const counters = [new BlockTokenCache(charCounter()), new BlockTokenCache(dearNotes)];
  const base: RenderOptions = { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, compact: { enabled: false }, policy: 'economy' };
  let state: TimelineState | undefined;
  let now = 0;
  let requests = 0;
  const n = { held: 0, heldNone: 0 };
  for (const e of events) {
    if (e.type === 'assistant') {
      requests++;
      // Six requests with one counter, six with the other; the minChars changes after 100 requests.
      const tokens = counters[Math.floor(requests / 6) % 2]!;
      const options: RenderOptions = { ...base, now, tokens, prune: { minChars: requests > 100 ? 240 : 300 } };
      const r = render(state!, options);
      const fresh = render(cold(state!), options);
      expect(r.decisions).toEqual(fresh.decisions);
      expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
      const held = r.decisions.filter((d) => d.type === 'defer' && d.why.startsWith('preserved thinking')).length;
      if (tokens === counters[0]) n.held += held;
      else n.heldNone += held;
      state = appendResponse(r.state, e.content as never, e.at);
      now = e.at;
      continue;
    }
    if ('at' in e && typeof e.at === 'number') now = e.at;
    state = applyEvent(state, e, { model, options: base, now, shift: 0, seen: new Set() });
  }
  return n;
}

describe('held stale results read from the slots equal a cold render, across options that change between requests', () => {
  for (const shape of ['multi', 'single'] as const) {
    it(`claude-sonnet-5-5, ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off`, () => {
      const n = replay(economySession('held-slots', MODEL, shape, REQUESTS));
      // The session holds stale results under the ordinary counter, and none under the one whose notes cost more.
      expect(n.held).toBeGreaterThan(50);
      expect(n.heldNone).toBe(0);
    });
  }
});

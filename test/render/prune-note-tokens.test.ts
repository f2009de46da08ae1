/**
 * The prune pass counts each note's tokens once per counter (src/render/prune.ts): a payload the gate keeps
 * visible is weighed again on later requests with the same note. What a prune reports removing must still be the
 * payload's tokens less its note's, both as the render's own counter counts them, whatever another counter
 * counted before: an economy session (compaction off, where the same payloads are weighed again and again) is
 * rendered at every request with a character counter and then with the default one, whose prunes are checked
 * against a counter that never saw a note before.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { hiddenSetOf } from '../../src/timeline/hidden.js';
import { findBlock } from '../../src/timeline/paths.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';
import { economySession, replayRequests } from '../helpers/economy-session.js';

describe("the prune pass's note counts", () => {
  it("are the render's own counter's, whatever another counter counted before", () => {
    const model = 'claude-sonnet-4-6';
    const options: RenderOptions = { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, policy: 'economy', compact: { enabled: false } };
    const other = new BlockTokenCache(charCounter(2));
    const main = new BlockTokenCache();
    let checked = 0;
    replayRequests(economySession('prune-note-tokens', model, 'multi', 80), model, options, (state, now) => {
      render(state, { ...options, now, tokens: other });
      const r = render(state, { ...options, now, tokens: main });
      const hidden = hiddenSetOf(r.state);
      for (const d of r.decisions) {
        if (d.type !== 'prune') continue;
        const fresh = new BlockTokenCache();
        const payload = findBlock(state, d.path)!.param;
        const note = hidden.get(d.path)!.note;
        const noteTokens = payload.type === 'thinking' || payload.type === 'redacted_thinking' ? 0 : fresh.tokens({ type: 'text', text: note });
        expect(d.tokensRemoved, d.path).toBe(Math.max(0, fresh.tokens(payload) - noteTokens));
        checked++;
      }
      return r;
    });
    expect(checked).toBeGreaterThan(10);
  });
});

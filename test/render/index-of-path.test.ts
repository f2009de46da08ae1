/**
 * indexOfPath (prune-rule.ts): a path's stream index, read from the layout and a remembered offset after its turn's
 * start (checked on use), is the index a scan of the whole stream finds, request after request of an economy session
 * whose pruned thinking moves the blocks after it within their turn.
 */
import { describe, expect, it } from 'vitest';
import { passContext } from '../../src/render/context.js';
import { stableStream } from '../../src/render/projection.js';
import { indexOfPath } from '../../src/render/prune-rule.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import type { StreamBlock } from '../../src/timeline/types.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { economySession, replayRequests } from '../helpers/economy-session.js';

/** The last index of `path` in the stream, scanned. */
function scan(stream: readonly StreamBlock[], path: string): number | undefined {
  for (let i = stream.length - 1; i >= 0; i--) if (stream[i]!.path === path) return i;
  return undefined;
}

describe('indexOfPath', () => {
  it('finds every block of every request’s stable stream where a scan does, while pruned thinking moves blocks', () => {
    const model = 'claude-sonnet-4-6';
    const tokens = new BlockTokenCache();
    const options: RenderOptions = { policy: 'economy', tokens };
    let moved = 0;
    let checked = 0;
    const before = new Map<string, number>();
    replayRequests(economySession('index-of-path', model, 'multi', 160), model, options, (state, now) => {
      const r = render(state, { ...options, now });
      const stream = stableStream(r.state, passContext(r.state, { ...options, now }));
      for (let i = 0; i < stream.length; i++) {
        const path = stream[i]!.path;
        const got = indexOfPath(stream, path);
        if (got !== scan(stream, path)) expect({ path, got }).toEqual({ path, got: scan(stream, path) });
        if (before.has(path) && before.get(path) !== i) moved++;
        before.set(path, i);
        checked++;
      }
      // A path no block has: none found, whatever was remembered for another.
      expect(indexOfPath(stream, 'turns/1/rounds/999/results/none')).toBeUndefined();
      return r;
    });
    expect(checked).toBeGreaterThan(10_000);
    // Blocks did move (pruned thinking of earlier turns), so remembered offsets were wrong and had to be checked.
    expect(moved).toBeGreaterThan(20);
  });
});

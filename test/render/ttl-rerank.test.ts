/**
 * Issue 13, item 1: options that validate must always render a valid request.
 * Economy holds ④ back before a payload it will prune next; with 1-hour TTLs on
 * ①–③ and `preTailOffset: 1`, ④ (5m) then lands before ③ (1h), which the API
 * refuses. The placement re-ranks (the earlier point becomes 1-hour) instead of
 * throwing TtlOrderError.
 */
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import { newSession, text } from '../helpers/build.js';

const OPTIONS: RenderOptions = {
  policy: 'economy',
  ttl: { envelope: '1h', previousTurn: '1h', preTail: '1h' },
  preTailOffset: 1,
};

function call(id: string) {
  return [{ type: 'tool_use' as const, id, name: 'Read', input: { path: `${id}.ts` } }];
}

describe('cache-point TTLs out of label order', () => {
  it('renders a valid request when ④ lands before a 1-hour ③ (economy, preTailOffset 1)', () => {
    let s = startTurn(newSession(), 'Task 1');
    let at = 0;
    const results: ReturnType<typeof render>[] = [];
    for (const [id, size] of [
      ['toolu_a', 2000],
      ['toolu_b', 50],
      ['toolu_c', 50],
    ] as const) {
      const r = render(s, { ...OPTIONS, now: (at += 1000) });
      results.push(r);
      s = appendResponse(r.state, call(id));
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: text(id, size) }]);
    }
    const last = render(s, { ...OPTIONS, now: (at += 1000) });
    for (const r of [...results, last]) {
      expect(validateRequest(toAnthropic(r, { max_tokens: 1024 }))).toBeNull();
      // TTLs never grow along the stream.
      const ttls = r.cachePoints.map((p) => p.ttl);
      expect(ttls.slice(ttls.indexOf('5m') < 0 ? ttls.length : ttls.indexOf('5m'))).not.toContain('1h');
    }
  });

  it('hideBlock reaches the same placement without throwing', () => {
    let s = startTurn(newSession(), 'Task 1');
    let at = 0;
    for (const [id, size] of [
      ['toolu_a', 2000],
      ['toolu_b', 50],
    ] as const) {
      s = render(s, { ...OPTIONS, now: (at += 1000) }).state;
      s = appendResponse(s, call(id));
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: text(id, size) }]);
    }
    s = render(s, { ...OPTIONS, now: (at += 1000) }).state;
    expect(() => hideBlock(s, 'turns/1/rounds/2/results/toolu_b', { ...OPTIONS, now: at + 1000, defer: true })).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/render.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { serializeWithOffsets, toAnthropic } from '../../src/providers/anthropic.js';
import { appendResponse, appendToolResults, setTail, startTurn } from '../../src/timeline/edit.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { PrefixStabilityError, assertPrefixStable } from '../../src/testing/stability.js';
import { finalAnswer, newSession, session, toolRound } from '../helpers/build.js';

describe('prefix stability (invariant 2)', () => {
  it('holds byte for byte across 60 appended rounds in 4 turns, with a changing tail', () => {
    let state = startTurn(newSession(), 'Turn 1');
    let prev = render(state, { now: 0 });
    state = prev.state;
    let checked = 0;
    for (let i = 1; i <= 60; i++) {
      if (i % 15 === 0) state = startTurn(finalAnswer(state), `Turn ${i / 15 + 1}`);
      else state = toolRound(state, 1 + (i % 4), 100 + ((i * 37) % 900));
      state = setTail(state, `live view ${i}: budget ${100 - i}%`);
      const next = render(state, { now: i * 5000 });
      assertPrefixStable(prev, next);
      checked++;
      prev = next;
      state = next.state;
    }
    expect(checked).toBe(60);
  });

  it('detects a changed byte before ④ (the assertion can fail)', () => {
    const a = render(session([6]), { now: 0 });
    const hidden = hideBlock(a.state, a.stream[a.cachePoints.at(-1)!.index]!.path, { now: 1, force: true }).state;
    const b = render(toolRound(hidden), { now: 2 });
    expect(() => assertPrefixStable(a, b)).toThrow(PrefixStabilityError);
  });

  it('serializes exactly like JSON.stringify', () => {
    const params = toAnthropic(render(setTail(session([2, 3]), 'tail'), { now: 0 }));
    expect(serializeWithOffsets(params).json).toBe(JSON.stringify(params));
  });
});

describe('determinism (invariant 3)', () => {
  it('renders the same bytes for the same state and options, with fresh token caches', () => {
    const state = setTail(session([3, 7, 2]), 'view');
    const a = toAnthropic(render(state, { now: 5, tokens: new BlockTokenCache() }));
    const b = toAnthropic(render(state, { now: 5, tokens: new BlockTokenCache() }));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('re-sends tool_use inputs exactly as the model produced them (key order included)', () => {
    let s = startTurn(newSession(), 'go');
    const input = { zeta: 1, alpha: { y: 2, b: [3, { d: 1, c: 2 }] } };
    s = toolRound(s);
    s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_keys', name: 'Read', input }]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_keys', content: 'ok' }]);
    const json = JSON.stringify(toAnthropic(render(s, { now: 0 })));
    expect(json).toContain('"input":{"zeta":1,"alpha":{"y":2,"b":[3,{"d":1,"c":2}]}}');
  });
});

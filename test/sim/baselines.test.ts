import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASELINES, baselineById, buildPrefix, BlockMemo, CacheSimulator, type SimParams } from '../../src/sim/index.js';
import { chat, countTokens, M1H, M5, markerCount, OPTIONS, PROFILE, req, sessionArb, text, tool } from './helpers.js';

const memo = new BlockMemo(countTokens);
const paths = (p: SimParams) => buildPrefix(p, PROFILE, 'x', memo).markers.map((b) => `${b.path} ${b.ttl}`);

describe('BASELINES', () => {
  it('have stable ids', () => {
    expect(BASELINES.map((b) => b.id)).toEqual(['none', 'envelope', 'auto', 'system_last', 'system1h_last', 'ide4', 'system2_last2', 'system_last2user']);
  });

  it('place at most 4 markers, never on thinking or empty text, and are never rejected', () => {
    fc.assert(
      fc.property(sessionArb, (session) => {
        for (const { params } of session) {
          for (const b of BASELINES) {
            const out = b.apply(params);
            expect(markerCount(out)).toBeLessThanOrEqual(4);
            expect(buildPrefix(out, PROFILE, 'x', memo).rejection).toBeNull();
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('replace the markers already present and do not mutate the input', () => {
    const input = Object.freeze(req([text(100, M1H), text(100, M5, 'b')], chat(3, 10, { 0: M5, 2: M5 }), { cache_control: M5 }));
    const before = JSON.stringify(input);
    expect(markerCount(baselineById('none').apply(input))).toBe(0);
    expect(paths(baselineById('envelope').apply(input))).toEqual(['system.1 5m']);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('place each strategy where its description says', () => {
    const thinkingLast: SimParams = {
      ...req(
        [text(100, undefined, 'a'), text(100, undefined, 'b'), text(100, undefined, 'c')],
        [...chat(4), { role: 'assistant', content: [text(5, undefined, 'z'), { type: 'thinking', thinking: 'hm', signature: 's' }] }],
      ),
      tools: [tool('a'), tool('b')],
    };
    const placed = Object.fromEntries(BASELINES.map((b) => [b.id, paths(b.apply(thinkingLast))]));
    expect(placed).toEqual({
      none: [],
      envelope: ['system.2 5m'],
      auto: ['messages.4.content.0 (auto) 5m'],
      system_last: ['system.2 5m', 'messages.4.content.0 5m'],
      system1h_last: ['system.1 1h', 'system.2 1h', 'messages.4.content.0 5m'],
      ide4: ['tools.1 5m', 'system.2 5m', 'messages.3.content.0 5m', 'messages.4.content.0 5m'],
      system2_last2: ['system.0 5m', 'system.1 5m', 'messages.3.content.0 5m', 'messages.4.content.0 5m'],
      system_last2user: ['system.2 5m', 'messages.0.content.0 5m', 'messages.2.content.0 5m'],
    });
  });

  it('mark a string system and string content as one text block with the same identity', () => {
    const sim = new CacheSimulator(OPTIONS);
    const plain: SimParams = { model: 'sim-test', max_tokens: 1, system: 'S'.repeat(300), messages: [{ role: 'user', content: 'hello' }] };
    const marked = baselineById('system_last').apply(plain);
    expect(paths(marked)).toEqual(['system.0 5m', 'messages.0.content.0 5m']);
    sim.send(marked, 0);
    expect(sim.send(plain, 1000).explain?.change).toBeNull();
  });
});

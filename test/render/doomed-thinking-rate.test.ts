/**
 * Economy sends the newest round's bulky payloads uncached when the next request prunes them (prune-rule.ts
 * doomedFrom). On a model that binds thinking, that prune is deferred when the response in between thinks, and the
 * payload is then written one request late: 1× + 1.25× instead of 1.25×. So it is sent uncached only while the
 * session's recent responses make thinking unlikely (below (write − input) ÷ (write − read), 0.22 at 5-minute
 * prices), not merely when the newest response did not think (judge-1282: economy 21 % over conservative).
 */
import { describe, expect, it } from 'vitest';
import { type ReplayOptions, replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { ENV, lines, T0 } from '../helpers/one-turn-trace.js';

const MODEL = 'claude-sonnet-5-5';
const BIG = 9;

/** One turn of ten Grep rounds (one-shot lookups), small results, then a big one at round BIG; `thinksAt` rounds think first. */
function trace(thinksAt: readonly number[]): string {
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const events: object[] = [
    { ...ENV, model: MODEL },
    { type: 'user', at: at(0), content: 'find the total' },
  ];
  let t = 0;
  for (let i = 0; i <= BIG + 1; i++) {
    t += 3000;
    const thinking = thinksAt.includes(i)
      ? [{ type: 'thinking', thinking: `Round ${i}: where next? `.repeat(10), signature: `sig-${i}-${'x'.repeat(40)}` }]
      : [];
    const input = { pattern: `p${i}`, path: `/repo/src/m${i}` };
    events.push({ type: 'assistant', at: at(t), content: [...thinking, { type: 'tool_use', id: `toolu_${i}`, name: 'Grep', input }] });
    t += 3000;
    const result = i === BIG ? lines(`hit${i}`, 120) : `src/m${i}.ts:${i}: total`;
    events.push({ type: 'tool_results', at: at(t), content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }] });
  }
  events.push({ type: 'assistant', at: at(t + 3000), content: [{ type: 'text', text: 'Done.' }] });
  return events.map((e) => JSON.stringify(e)).join('\n');
}

/** The request that first sends round BIG's result: its uncached input tokens and the tokens it writes. */
async function bigRequest(thinksAt: readonly number[], ttl?: ReplayOptions['ttl']) {
  const reqs = await replayAll(parseTrace(trace(thinksAt)), { policy: 'economy', ...(ttl ? { ttl } : {}) });
  const path = `turns/1/rounds/${BIG + 1}/results/toolu_${BIG}`;
  const i = reqs.findIndex((r) => r.rendered.stream.some((b) => b.path === path));
  expect(i).toBeGreaterThan(0);
  const plan = reqs[i]!.rendered.plan;
  return { uncached: plan.usage.input_tokens, written: plan.usage.cache_creation_input_tokens };
}

describe('economy on a model that binds thinking: the newest payload sent uncached only when thinking is unlikely', () => {
  it('writes it when three of the eight newest responses thought, though the newest did not', async () => {
    const { uncached, written } = await bigRequest([0, 3, 5, 7]);
    expect(uncached).toBeLessThan(100);
    expect(written).toBeGreaterThan(1500);
  });

  it('writes it when two of the eight newest responses thought, though none of the four newest did', async () => {
    const { uncached, written } = await bigRequest([2, 4]);
    expect(uncached).toBeLessThan(100);
    expect(written).toBeGreaterThan(1500);
  });

  it('sends it uncached when none of the eight newest responses thought', async () => {
    const { uncached, written } = await bigRequest([0]);
    expect(uncached).toBeGreaterThan(1500);
    expect(written).toBeLessThan(100);
  });

  it('reads the rate from the eight newest responses only: thinking before them is a habit the session dropped', async () => {
    const { uncached } = await bigRequest([0, 1]);
    expect(uncached).toBeGreaterThan(1500);
  });

  it('with ④ on the hour (a 2× write) the break-even is 0.53: three of the eight newest thinking still sends it uncached', async () => {
    const hour = { envelope: '1h', previousTurn: '1h', preTail: '1h', tail: '1h' } as const;
    const { uncached, written } = await bigRequest([0, 3, 5, 7], hour);
    expect(uncached).toBeGreaterThan(1500);
    expect(written).toBeLessThan(100);
    // Five of eight ((5 + ½) ÷ 9 = 0.61): written on the hour too.
    expect((await bigRequest([0, 2, 3, 5, 7, 8], hour)).uncached).toBeLessThan(100);
  });

  it('writes it when the newest response thought', async () => {
    const { uncached } = await bigRequest([0, BIG]);
    expect(uncached).toBeLessThan(100);
  });
});

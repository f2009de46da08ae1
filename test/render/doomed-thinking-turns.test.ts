/**
 * Economy's doomed rule on a model that binds thinking reads the thinking rate over the newest responses of the
 * session (prune-rule.ts thinkingLikely), not of the current turn only: a new turn's first rounds carry the session's
 * habit, so a session that stopped thinking sends a new turn's newest bulky payload uncached at once, and one that
 * thinks keeps writing it. With no history the rate is one half (add-half smoothed): the session's first round writes.
 */
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { ENV, lines, T0 } from '../helpers/one-turn-trace.js';

const MODEL = 'claude-sonnet-5-5';

/**
 * Turn 1: eight Grep rounds with small results (`thinks`: each response thinks first), then an answer. Turn 2: one
 * Grep whose result is big, then an answer.
 */
function trace(thinks: boolean): string {
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const events: object[] = [
    { ...ENV, model: MODEL },
    { type: 'user', at: at(0), content: 'find the total' },
  ];
  let t = 0;
  const round = (i: number, result: string, thinking: boolean) => {
    t += 3000;
    const think = thinking ? [{ type: 'thinking', thinking: `Round ${i}: where next? `.repeat(10), signature: `sig-${i}-${'x'.repeat(40)}` }] : [];
    const input = { pattern: `p${i}`, path: `/repo/src/m${i}` };
    events.push({ type: 'assistant', at: at(t), content: [...think, { type: 'tool_use', id: `toolu_${i}`, name: 'Grep', input }] });
    t += 3000;
    events.push({ type: 'tool_results', at: at(t), content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }] });
  };
  for (let i = 0; i < 8; i++) round(i, `src/m${i}.ts:${i}: total`, thinks);
  events.push({ type: 'assistant', at: at((t += 3000)), content: [{ type: 'text', text: 'Found it.' }] });
  events.push({ type: 'user', at: at((t += 3000)), content: 'and the refunds?' });
  round(8, lines('hit8', 120), false);
  events.push({ type: 'assistant', at: at(t + 3000), content: [{ type: 'text', text: 'Done.' }] });
  return events.map((e) => JSON.stringify(e)).join('\n');
}

/** The request that first sends turn 2's big result: its uncached input tokens and the tokens it writes. */
async function bigRequest(thinks: boolean) {
  const reqs = await replayAll(parseTrace(trace(thinks)), { policy: 'economy' });
  const path = 'turns/2/rounds/1/results/toolu_8';
  const i = reqs.findIndex((r) => r.rendered.stream.some((b) => b.path === path));
  expect(i).toBeGreaterThan(0);
  const plan = reqs[i]!.rendered.plan;
  return { uncached: plan.usage.input_tokens, written: plan.usage.cache_creation_input_tokens };
}

/** The session's first round brings a big result (its response does not think), then small Grep rounds. */
function firstRoundTrace(): string {
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const events: object[] = [
    { ...ENV, model: MODEL },
    { type: 'user', at: at(0), content: 'find the total' },
  ];
  let t = 0;
  for (let i = 0; i < 4; i++) {
    const input = { pattern: `p${i}`, path: `/repo/src/m${i}` };
    events.push({ type: 'assistant', at: at((t += 3000)), content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Grep', input }] });
    const result = i === 0 ? lines('hit0', 120) : `src/m${i}.ts:${i}: total`;
    events.push({ type: 'tool_results', at: at((t += 3000)), content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }] });
  }
  events.push({ type: 'assistant', at: at(t + 3000), content: [{ type: 'text', text: 'Done.' }] });
  return events.map((e) => JSON.stringify(e)).join('\n');
}

describe('economy on a model that binds thinking, the first round', () => {
  it('writes the session’s first big payload: one response that did not think is no rate yet', async () => {
    const reqs = await replayAll(parseTrace(firstRoundTrace()), { policy: 'economy' });
    const plan = reqs[1]!.rendered.plan;
    expect(reqs[1]!.rendered.stream.some((b) => b.path === 'turns/1/rounds/1/results/toolu_0')).toBe(true);
    expect(plan.usage.input_tokens).toBeLessThan(100);
    expect(plan.usage.cache_creation_input_tokens).toBeGreaterThan(1500);
  });
});

describe('economy on a model that binds thinking, a new turn: the thinking rate is the session’s', () => {
  it('sends the new turn’s first big payload uncached when none of the session’s newest responses thought', async () => {
    const { uncached, written } = await bigRequest(false);
    expect(uncached).toBeGreaterThan(1500);
    expect(written).toBeLessThan(100);
  });

  it('writes it when the session’s newest responses thought, though the new turn’s did not', async () => {
    const { uncached, written } = await bigRequest(true);
    expect(uncached).toBeLessThan(100);
    expect(written).toBeGreaterThan(1500);
  });
});

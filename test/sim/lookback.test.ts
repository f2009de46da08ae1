import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { CacheSimulator, type SimResult } from '../../src/sim/index.js';
import { chat, M5, OPTIONS, req, text } from './helpers.js';

const SYSTEM = [text(200, undefined, 'S')];

function accepted(r: SimResult) {
  if (r.rejected) throw new Error(`rejected: ${r.rejected.message}`);
  return r;
}

/** Sends a request marked at message `first`, then one marked at message `first + distance`. */
function readAcross(distance: number): SimResult {
  const sim = new CacheSimulator(OPTIONS);
  const first = 3;
  accepted(sim.send(req(SYSTEM, chat(first + 1, 10, { [first]: M5 })), 0));
  return sim.send(req(SYSTEM, chat(first + distance + 1, 10, { [first + distance]: M5 })), 1000);
}

describe('CacheSimulator lookback', () => {
  it('reads the docs example: 10 blocks, then 15 read 10, then 35 misses 15', () => {
    // Position 0 is the system block, so "block k" of the docs is message k−2 here.
    const sim = new CacheSimulator(OPTIONS);
    const t1 = accepted(sim.send(req(SYSTEM, chat(9, 10, { 8: M5 })), 0));
    expect(t1.explain.markers[0]?.position).toBe(9);
    expect(t1.usage.cache_creation_input_tokens).toBe(290);
    const t2 = accepted(sim.send(req(SYSTEM, chat(14, 10, { 13: M5 })), 1000));
    expect(t2.usage.cache_read_input_tokens).toBe(290);
    expect(t2.explain.markers[0]?.hit).toEqual({ position: 9, tokens: 290, back: 5 });
    const t3 = accepted(sim.send(req(SYSTEM, chat(34, 10, { 33: M5 })), 2000));
    expect(t3.usage.cache_read_input_tokens).toBe(0);
    expect(t3.usage.cache_creation_input_tokens).toBe(540);
    // A second marker at the old position would have hit.
    const t4 = accepted(sim.send(req(SYSTEM, chat(54, 10, { 33: M5, 53: M5 })), 3000));
    expect(t4.usage.cache_read_input_tokens).toBe(540);
  });

  it('hits an entry 19 positions back (the marker is the first of 20)', () => {
    const r = accepted(readAcross(19));
    expect(r.usage.cache_read_input_tokens).toBe(240);
    expect(r.explain.read).toEqual({ marker: 0, position: 4, tokens: 240 });
  });

  it('misses an entry 20 and 21 positions back, and reports the miss as a bust', () => {
    for (const distance of [20, 21]) {
      const r = accepted(readAcross(distance));
      expect(r.usage.cache_read_input_tokens).toBe(0);
      expect(r.explain.bust).toBe(true);
      expect(r.explain.missedTokens).toBe(240);
    }
  });

  it('counts a run of tool_use blocks and a run of tool_result blocks as one position each', () => {
    const sim = new CacheSimulator(OPTIONS);
    const base: MessageParam[] = [{ role: 'user', content: [text(10, M5)] }];
    accepted(sim.send(req(SYSTEM, base), 0));
    // 9 rounds of 3 parallel calls: 54 blocks but 18 positions, then a marked user text: 19 back.
    const rounds: MessageParam[] = [];
    for (let r = 0; r < 9; r++) {
      const ids = [0, 1, 2].map((k) => `t${r}_${k}`);
      rounds.push({ role: 'assistant', content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 'read', input: {} })) });
      rounds.push({ role: 'user', content: ids.map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' })) });
    }
    const unmarked: MessageParam[] = [{ role: 'user', content: [text(10)] }];
    const hit = accepted(sim.send(req(SYSTEM, [...unmarked, ...rounds, { role: 'assistant', content: [text(5, M5)] }]), 1000));
    expect(hit.explain.markers[0]?.position).toBe(20);
    expect(hit.usage.cache_read_input_tokens).toBe(210);
    expect(hit.explain.read?.position).toBe(1);
  });

  it('misses when the same blocks are not runs (each block its own position)', () => {
    const sim = new CacheSimulator(OPTIONS);
    accepted(sim.send(req(SYSTEM, [{ role: 'user', content: [text(10, M5)] }]), 0));
    // The same 18 rounds' worth of content as single tool calls: 36 positions, far outside the window.
    const rounds: MessageParam[] = [];
    for (let r = 0; r < 18; r++) {
      rounds.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${r}`, name: 'read', input: {} }] });
      rounds.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${r}`, content: 'ok' }] });
    }
    const miss = accepted(sim.send(req(SYSTEM, [{ role: 'user', content: [text(10)] }, ...rounds, { role: 'assistant', content: [text(5, M5)] }]), 1000));
    expect(miss.usage.cache_read_input_tokens).toBe(0);
    expect(miss.explain.bust).toBe(true);
  });

  it('crosses from messages back into system and tools', () => {
    const sim = new CacheSimulator(OPTIONS);
    const sys = [text(150, undefined, 'A'), text(50, M5, 'B')];
    accepted(sim.send(req(sys, chat(1)), 0));
    const r = accepted(sim.send(req([sys[0]!, text(50, undefined, 'B')], chat(5, 10, { 4: M5 })), 1000));
    expect(r.usage.cache_read_input_tokens).toBe(200);
    expect(r.explain.read?.position).toBe(1);
  });
});

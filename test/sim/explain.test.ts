import { describe, expect, it } from 'vitest';
import { CacheSimulator, type SimParams } from '../../src/sim/index.js';
import { chat, M5, MIN, OPTIONS, req, text, tool } from './helpers.js';

const base = (extra: Partial<SimParams> = {}): SimParams => ({ ...req([text(200, M5)], chat(4, 10, { 3: M5 })), tools: [tool('a'), tool('b')], ...extra });

function changeAfter(first: SimParams, second: SimParams) {
  const sim = new CacheSimulator(OPTIONS);
  sim.send(first, 0);
  return sim.send(second, 1000).explain?.change;
}

describe('RequestExplain.change', () => {
  it('is null for the first request and when only messages were appended', () => {
    const sim = new CacheSimulator(OPTIONS);
    expect(sim.send(base(), 0).explain?.change).toBeNull();
    expect(sim.send({ ...base(), messages: chat(6, 10, { 5: M5 }) }, 1000).explain?.change).toBeNull();
  });

  it('names tools_changed at the first changed tool', () => {
    expect(changeAfter(base(), base({ tools: [tool('a'), tool('c')] }))).toEqual({ position: 1, tier: 'tools', cause: 'tools_changed' });
  });

  it('names system_changed for a system edit and for a speed toggle', () => {
    expect(changeAfter(base(), base({ system: [text(200, M5, 'y')] }))).toEqual({ position: 2, tier: 'system', cause: 'system_changed' });
    expect(changeAfter(base(), base({ speed: 'fast' }))).toMatchObject({ position: 2, cause: 'system_changed' });
  });

  it('names messages_changed for an edited message, a tool_choice change and a truncation', () => {
    const edited = chat(4, 10, { 3: M5 });
    edited[1] = { role: 'assistant', content: [text(10, undefined, 'Q')] };
    expect(changeAfter(base(), base({ messages: edited }))).toEqual({ position: 4, tier: 'messages', cause: 'messages_changed' });
    expect(changeAfter(base(), base({ tool_choice: { type: 'any' } }))).toEqual({ position: 3, tier: 'messages', cause: 'messages_changed' });
    expect(changeAfter(base(), base({ messages: chat(2) }))).toEqual({ position: 5, tier: 'messages', cause: 'messages_changed' });
  });

  it('ignores markers: moving a marker is not a change', () => {
    expect(changeAfter(base(), base({ messages: chat(4, 10, { 1: M5 }) }))).toBeNull();
  });

  it('names model_changed first', () => {
    expect(changeAfter(base(), base({ model: 'sim-test-2', tools: [tool('z')] }))?.cause).toBe('model_changed');
  });
});

describe('RequestExplain.bust', () => {
  it('flags a warm entry the markers could not reach, with the missed tokens', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(req([text(200, M5)], chat(4, 10, { 3: M5 })), 0);
    // 30 more positions, and the old tail marker is not repeated: only the system entry is found.
    const r = sim.send(req([text(200, M5)], chat(34, 10, { 33: M5 })), 1000);
    expect(r.usage?.cache_read_input_tokens).toBe(200);
    expect(r.explain).toMatchObject({ bust: true, missedTokens: 40, missedPosition: 4 });
    expect(r.explain?.read).toEqual({ marker: 0, position: 0, tokens: 200 });
  });

  it('is not a bust when the longer entry expired', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(req([text(200, M1H_SYSTEM)], chat(4, 10, { 3: M5 })), 0);
    const r = sim.send(req([text(200, M1H_SYSTEM)], chat(34, 10, { 33: M5 })), 6 * MIN);
    expect(r.usage?.cache_read_input_tokens).toBe(200);
    expect(r.explain?.bust).toBe(false);
  });

  it('is not a bust when the read is the longest warm prefix', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(req([text(200, M5)], chat(4, 10, { 3: M5 })), 0);
    const r = sim.send(req([text(200, M5)], chat(6, 10, { 5: M5 })), 1000);
    expect(r.explain).toMatchObject({ bust: false, missedTokens: 0, missedPosition: null, read: { position: 4, tokens: 240 } });
  });
});

const M1H_SYSTEM = { type: 'ephemeral', ttl: '1h' } as const;

import { describe, expect, it } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { setEnvelope } from '../../src/timeline/edit.js';
import { INSTRUCTIONS, TOOLS, session, toolRound } from '../helpers/build.js';
import { produce } from 'immer';

describe('the render plan', () => {
  const base = () => render(session([2, 5]), { now: 0 });

  it('says nothing changed when rounds were only appended, and predicts the read of the previous ④', () => {
    const a = base();
    const b = render(toolRound(a.state), { now: 5000 });
    expect(b.plan.cause).toBeNull();
    expect(b.plan.firstChangePath).toBeUndefined();
    expect(b.plan.read?.entry).toBe(a.cachePoints.find((p) => p.labels.includes(4))!.path);
    expect(b.plan.usage.cache_read_input_tokens + b.plan.usage.cache_creation_input_tokens + b.plan.usage.input_tokens).toBe(b.tokens.total);
    expect(b.plan.bust).toBe(false);
  });

  it('names the cause of a changed prefix in the API’s words', () => {
    const a = base();
    const path = a.state.turns[1]!.rounds[4]!.results[0]!.path;
    const hidden = render(hideBlock(a.state, path, { now: 1000, force: true }).state, { now: 2000 });
    expect(hidden.plan.cause).toBe('messages_changed');
    expect(hidden.plan.firstChangePath).toBe(path);

    const system = render(setEnvelope(a.state, { instructions: [...INSTRUCTIONS, 'Also: be brief.'], tools: TOOLS }), { now: 2000 });
    expect(system.plan.cause).toBe('system_changed');
    const tools = render(setEnvelope(a.state, { instructions: INSTRUCTIONS, tools: TOOLS.slice(1) }), { now: 2000 });
    expect(tools.plan.cause).toBe('tools_changed');
    const model = render(
      produce(a.state, (d) => void (d.model = 'claude-opus-4-5')),
      { now: 2000 },
    );
    expect(model.plan.cause).toBe('model_changed');
  });

  it('prices cold prunes too: nothing to re-write, the removed tokens are saved', () => {
    let s = base().state;
    for (let i = 0; i < 10; i++) s = render(toolRound(s, 1, 3000), { now: 1000 * (i + 1) }).state;
    const cold = render(s, { now: 60 * 60_000, prune: { keepTurns: 0, keepRounds: 2, reuse: false } });
    const prunes = cold.decisions.filter((d) => d.type === 'prune');
    expect(prunes.length).toBeGreaterThan(0);
    for (const d of prunes) expect(d.type === 'prune' && d.price).toMatchObject({ warm: false, rewrite: 0 });
    expect(prunes.every((d) => d.type === 'prune' && d.price!.saving > 0)).toBe(true);
  });
  // Our estimate is not the provider's count: a marked prefix a little under the minimum may hold an entry, so the
  // ledger keeps it (plan.ts NEAR_MINIMUM) and the bridge can reach it; it may as well not exist, so no read is billed.
  it('keeps a possible entry under the minimum in the ledger without billing a read of it', () => {
    const s = session([2, 5]);
    const probe = render(s, { now: 0 });
    const last = probe.cachePoints.at(-1)!.prefixTokens;
    // A minimum the prefix is 0.8 of: possible, not certain.
    const profile = customProfile('near-minimum', { minCacheableTokens: Math.ceil(last / 0.8), prices: { input: 3 } });
    const a = render(s, { now: 0, profile });
    expect(a.plan.writes).toEqual([]);
    expect(a.state.lastRender!.entries.map((e) => e.path)).toContain(a.cachePoints.at(-1)!.path);
    const b = render(toolRound(a.state, 1, 10), { now: 5000, profile });
    expect(b.plan.read).toBeUndefined();
    expect(b.plan.usage.cache_read_input_tokens).toBe(0);
    expect(b.plan.bust).toBe(false);
    // Read (refreshed), not forgotten.
    const kept = b.state.lastRender!.entries.find((e) => e.path === a.cachePoints.at(-1)!.path);
    expect(kept?.expiresAt).toBe(5000 + profile.ttlMs['5m']);
  });
});

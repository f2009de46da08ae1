import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { bedrockProfile, toBedrockConverse } from '../../src/providers/bedrock.js';
import { render } from '../../src/render/render.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { fromBedrockConverse } from '../../src/sim/from-provider.js';
import { setTail } from '../../src/timeline/edit.js';
import { session, toolRound } from '../helpers/build.js';
import { UnknownModelError } from '../../src/errors.js';

const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

function cachePoints(input: unknown): { where: string; ttl?: string }[] {
  const out: { where: string; ttl?: string }[] = [];
  const scan = (where: string, blocks: unknown) => {
    (blocks as { cachePoint?: { ttl?: string } }[] | undefined)?.forEach((b) => {
      if (b.cachePoint) out.push({ where, ...(b.cachePoint.ttl ? { ttl: b.cachePoint.ttl } : {}) });
    });
  };
  const i = input as { toolConfig?: { tools: unknown }; system?: unknown; messages: { content: unknown }[] };
  scan('tools', i.toolConfig?.tools);
  scan('system', i.system);
  i.messages.forEach((m, k) => scan(`messages.${k}`, m.content));
  return out;
}

describe('bedrockProfile', () => {
  it('resolves Bedrock ids, with or without a region prefix, to the Claude profile under Bedrock rules', () => {
    for (const id of [ID, 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5']) {
      const p = bedrockProfile(id);
      expect(p.id).toBe(id);
      expect(p.provider).toBe('bedrock');
      expect(p.caching).toEqual({ kind: 'markers', maxMarkers: 4, lookback: 20, implicit: false });
      expect(p.prices.input).toBe(3);
    }
  });

  it('names the id when no Claude model matches', () => {
    expect(() => bedrockProfile('us.anthropic.claude-nope-9-v1:0')).toThrow(UnknownModelError);
    expect(() => bedrockProfile('us.anthropic.claude-nope-9-v1:0')).toThrow(/claude-nope-9/);
  });
});

describe('toBedrockConverse', () => {
  it('closes every cache point with a cachePoint block, at most four, none after the tail', () => {
    let s = session([2, 6], ID);
    s = setTail(s, [{ type: 'text', text: 'Budget: 12k tokens left.' }]);
    const r = render(s, { profile: bedrockProfile(ID), now: 0 });
    const input = toBedrockConverse(r, { inferenceConfig: { maxTokens: 1024 } });
    const sdk: ConverseCommandInput = input; // our shape is the AWS SDK's
    expect(sdk.modelId).toBe(ID);
    const points = cachePoints(input);
    expect(points.length).toBe(r.cachePoints.length);
    expect(points.length).toBeLessThanOrEqual(4);
    const last = input.messages.at(-1)!.content;
    expect(last.at(-1)).toEqual({ text: 'Budget: 12k tokens left.' });
    expect(input.system?.some((b) => 'cachePoint' in b)).toBe(true);
    // Thinking of the timeline travels as reasoning content, signature kept.
    expect(JSON.stringify(input)).toContain('"reasoningContent"');
  });

  it('writes 1h points before 5m ones and sends ttl only for 1h', () => {
    const s = session([1, 3], ID);
    const r = render(s, { profile: bedrockProfile(ID), now: 0, ttl: { envelope: '1h' } });
    const points = cachePoints(toBedrockConverse(r));
    const hours = points.filter((p) => p.ttl === '1h');
    expect(hours.length).toBeGreaterThan(0);
    expect(hours.every((p) => p.where === 'tools' || p.where === 'system')).toBe(true);
    // Non-increasing along tools → system → messages: once a 5m point appears, no 1h follows.
    const firstShort = points.findIndex((p) => p.ttl === undefined);
    expect(firstShort).toBeGreaterThan(0);
    expect(points.slice(firstShort).every((p) => p.ttl === undefined)).toBe(true);
  });

  it('round-trips through the simulator: accepted, and each request reads what the previous one wrote', () => {
    const profile = bedrockProfile(ID);
    const sim = new CacheSimulator({ profile });
    let s = session([1, 2], ID);
    let at = 0;
    for (let i = 0; i < 6; i++) {
      const r = render(s, { profile, now: at });
      const out = sim.send(fromBedrockConverse(toBedrockConverse(r)), at);
      expect(out.rejected).toBeNull();
      if (i > 0) expect(out.usage!.cache_read_input_tokens).toBeGreaterThan(0);
      s = toolRound(r.state);
      at += 20_000;
    }
  });
});

import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { bedrockProfile, fromConverseOutput, toBedrockConverse } from '../../src/providers/bedrock.js';
import { render } from '../../src/render/render.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { fromBedrockConverse } from '../../src/sim/from-provider.js';
import { createTimeline, setTail, startTurn } from '../../src/timeline/edit.js';
import { answerAll, session, toolResponse, toolRound } from '../helpers/build.js';
import { appendResponse, appendToolResults } from '../../src/timeline/edit.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
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

  it('sends a titled base64 or text document of a Converse format as a document block (its title the name), and names one it cannot', () => {
    const doc = (source: object, extra: object = {}) => ({ type: 'document', source, ...extra }) as never;
    const pdf = { type: 'base64', media_type: 'application/pdf', data: Buffer.from('%PDF-1.4').toString('base64') };
    let s = createTimeline({ model: ID, instructions: ['Be brief.'], tools: [] });
    s = startTurn(s, [
      { type: 'text', text: 'Read these.' },
      doc(pdf, { title: 'Spec (v2)', context: 'The spec.', citations: { enabled: true } }),
      doc({ type: 'text', media_type: 'text/markdown', data: '# Notes' }, { title: 'notes' }),
    ]);
    const input = toBedrockConverse(render(s, { profile: bedrockProfile(ID), now: 0 }));
    expect(input.messages[0]!.content.slice(1, 3)).toEqual([
      {
        document: {
          format: 'pdf',
          name: 'Spec (v2)',
          source: { bytes: new Uint8Array(Buffer.from('%PDF-1.4')) },
          context: 'The spec.',
          citations: { enabled: true },
        },
      },
      { document: { format: 'md', name: 'notes', source: { text: '# Notes' } } },
    ]);
    // Converse needs a name, and takes no URL or file source: named, not sent wrong.
    for (const [block, why] of [
      [doc(pdf), /needs a name/],
      [doc({ type: 'url', url: 'https://example.com/a.pdf' }, { title: 'a' }), /only base64 or text documents/],
    ] as const) {
      const t = startTurn(createTimeline({ model: ID, instructions: ['Be brief.'], tools: [] }), [{ type: 'text', text: 'Read.' }, block]);
      expect(() => toBedrockConverse(render(t, { profile: bedrockProfile(ID), now: 0 }))).toThrow(why);
    }
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

  it('prices redacted thinking by its base64 text, as the Messages API request does (issue 17: the byte array read back as JSON added ~2k tokens per block)', () => {
    // A redacted_thinking block travels to Converse as bytes (Uint8Array); read back for the simulator it
    // must be the same base64 string, so the same conversation costs the same tokens on both providers.
    const data = btoa(String.fromCharCode(...Array.from({ length: 600 }, (_, i) => (i * 37) % 256)));
    let s = session([1], ID);
    s = appendResponse(s, [{ type: 'redacted_thinking', data }, ...toolResponse(1, false)]);
    s = toolRound(answerAll(s, 300));
    const profile = bedrockProfile(ID);
    const r = render(s, { profile, now: 0 });
    const converse = fromBedrockConverse(toBedrockConverse(r), ID);
    const blocks = converse.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));
    expect(blocks).toContainEqual({ type: 'redacted_thinking', data });
    const tokens = (params: Parameters<CacheSimulator['send']>[0]) => new CacheSimulator({ profile }).send(params, 0).explain!.totalTokens;
    const anthropic = toAnthropic(r);
    // Converse has no string form for one-text tool results and no cache_control field: the counts agree within the markers' bytes.
    expect(Math.abs(tokens(converse) - tokens(anthropic as never))).toBeLessThan(20);
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

describe('fromConverseOutput', () => {
  it('keeps redacted reasoning: the next request sends the same bytes back (the API decrypts them to continue)', () => {
    // A Converse response as the AWS SDK returns it: the redacted reasoning is a blob (Uint8Array).
    const bytes = Uint8Array.from({ length: 64 }, (_, i) => (i * 53) % 256);
    const output = {
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Read it.', signature: 'EqQBCgIYAhIM' } } },
            { reasoningContent: { redactedContent: bytes } },
            { toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: { path: 'a.ts' } } },
          ],
        },
      },
    };
    const blocks = fromConverseOutput(output);
    expect(blocks.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
    let s = session([1], ID);
    s = appendResponse(s, blocks as never);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'tooluse_1', content: 'export {}' }]);
    const sent = toBedrockConverse(render(s, { profile: bedrockProfile(ID), now: 0 }));
    const assistant = sent.messages.filter((m) => m.role === 'assistant').at(-1)!;
    expect(assistant.content.slice(0, 2)).toEqual([
      { reasoningContent: { reasoningText: { text: 'Read it.', signature: 'EqQBCgIYAhIM' } } },
      { reasoningContent: { redactedContent: bytes } },
    ]);
  });
});

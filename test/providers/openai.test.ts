import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions/completions';
import { describe, expect, it } from 'vitest';
import { ProviderMappingError } from '../../src/errors.js';
import { toOpenAIChat, toOpenAIResponses } from '../../src/providers/openai.js';
import { OPENAI_MODELS } from '../../src/providers/openai-profile.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import { session, toolRound } from '../helpers/build.js';

const TERRA = OPENAI_MODELS['gpt-5.6-terra']!;
const GPT54 = OPENAI_MODELS['gpt-5.4']!;

function rendered(rounds: readonly number[], profile = TERRA, tail = true): Rendered {
  let s = session(rounds, profile.id);
  if (tail) s = setTail(s, [{ type: 'text', text: 'Budget: 12k tokens left. Now: 10:42.' }]);
  return render(s, { profile, now: 1_000 });
}

function markers(value: unknown): number {
  return (JSON.stringify(value).match(/"prompt_cache_breakpoint"/g) ?? []).length;
}

function strip(value: unknown): string {
  return JSON.stringify(value, (k, v) => (k === 'prompt_cache_breakpoint' ? undefined : v));
}

describe('toOpenAIResponses', () => {
  it('maps tools to functions, instructions to one developer message and calls to paired items', () => {
    const params = toOpenAIResponses(rendered([3]), { promptCacheKey: 'conv-1', request: { max_output_tokens: 2048 } });
    const sdk: ResponseCreateParamsNonStreaming = params; // our shape is the SDK's
    expect(sdk.model).toBe('gpt-5.6-terra');
    expect(params.tools?.map((t) => t.name)).toEqual(['Read', 'Edit']);
    expect(params.tools?.[0]).toMatchObject({ type: 'function', strict: false, parameters: { type: 'object' } });
    const first = params.input[0];
    expect(first).toMatchObject({ type: 'message', role: 'developer' });
    const calls = params.input.filter((i) => i.type === 'function_call').map((i) => (i as { call_id: string }).call_id);
    const outputs = params.input.filter((i) => i.type === 'function_call_output').map((i) => (i as { call_id: string }).call_id);
    expect(calls.length).toBeGreaterThan(0);
    expect(outputs).toEqual(calls);
    expect(params.prompt_cache_key).toBe('conv-1');
    expect(params.max_output_tokens).toBe(2048);
    expect(JSON.stringify(params)).not.toContain('thinking');
  });

  it('puts at most four markers on GPT-5.6, in explicit mode, never on the tail', () => {
    const r = rendered([2, 6]);
    const params = toOpenAIResponses(r);
    expect(params.prompt_cache_options).toEqual({ mode: 'explicit' });
    const n = markers(params);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(4);
    const last = params.input.at(-1) as { role: string; content: { text: string; prompt_cache_breakpoint?: unknown }[] };
    expect(last.content.at(-1)?.text).toContain('Budget');
    expect(last.content.at(-1)?.prompt_cache_breakpoint).toBeUndefined();
  });

  it('sends no markers and no cache options before GPT-5.6', () => {
    const params = toOpenAIResponses(rendered([2, 6], GPT54), { promptCacheKey: 'c', retention: '24h' });
    expect(markers(params)).toBe(0);
    expect(params.prompt_cache_options).toBeUndefined();
    expect(params.prompt_cache_retention).toBe('24h');
  });

  it('keeps the stable prefix byte-stable when a round is appended', () => {
    let s = session([1, 3], TERRA.id);
    const a = render(s, { profile: TERRA, now: 0 });
    s = toolRound(a.state);
    const b = render(s, { profile: TERRA, now: 5_000 });
    const pa = toOpenAIResponses(a);
    const pb = toOpenAIResponses(b);
    const stableA = pa.input.slice(0, -1); // a's last user item ends with results only (no tail): keep all but it
    expect(strip(pb.input).startsWith(strip(stableA).slice(0, -1))).toBe(true);
    expect(strip(pb.tools)).toBe(strip(pa.tools));
  });

  it('refuses a server tool with a typed error naming the block', () => {
    const r = rendered([1]);
    const withServerTool = { ...r, stream: [{ ...r.stream[0]!, param: { type: 'web_search_20250305', name: 'web_search' } as never }, ...r.stream.slice(1)] };
    expect(() => toOpenAIResponses(withServerTool)).toThrow(ProviderMappingError);
    expect(() => toOpenAIResponses(withServerTool)).toThrow(/envelope\/tools\/Read: tool "web_search" is a provider-specific \(server\) tool/);
  });
});

describe('toOpenAIChat', () => {
  it('answers every tool call right after its assistant message', () => {
    const params = toOpenAIChat(rendered([4], GPT54), { promptCacheKey: 'conv-1' });
    const sdk: ChatCompletionCreateParamsNonStreaming = params;
    expect(sdk.messages[0]?.role).toBe('developer');
    for (let i = 0; i < params.messages.length; i++) {
      const m = params.messages[i]!;
      if (m.role !== 'assistant' || !m.tool_calls) continue;
      const ids = m.tool_calls.map((c) => c.id);
      const answers = params.messages.slice(i + 1, i + 1 + ids.length).map((x) => (x.role === 'tool' ? x.tool_call_id : null));
      expect(answers).toEqual(ids);
    }
    expect(params.prompt_cache_key).toBe('conv-1');
  });

  it('marks GPT-5.6 text parts, at most four', () => {
    const params = toOpenAIChat(rendered([2, 5]));
    expect(markers(params)).toBeGreaterThan(0);
    expect(markers(params)).toBeLessThanOrEqual(4);
    expect(params.prompt_cache_options).toEqual({ mode: 'explicit' });
  });

  it('maps a user turn that starts after an answer as a new user message', () => {
    let s = session([1], GPT54.id);
    s = startTurn(s, 'And now the docs.');
    const params = toOpenAIChat(render(s, { profile: GPT54, now: 0 }));
    const last = params.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last)).toContain('And now the docs.');
  });
});

/**
 * The AI SDK prompt ⇄ Anthropic params mapping, checked against the real
 * provider: what `@ai-sdk/anthropic` puts on the wire must be exactly what the
 * mapping predicted, with the markers where the rendered params had them.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { generateText, stepCountIs, streamText, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { fromAnthropicPrompt } from '../../../src/integrations/ai-sdk/from-anthropic.js';
import { markerTarget } from '../../../src/integrations/ai-sdk/providers.js';
import { resolveProfile } from '../../../src/models/profiles.js';
import { toAnthropicPrompt, UnmappablePromptError, type AnthropicPrompt } from '../../../src/integrations/ai-sdk/to-anthropic.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools, bodies, fakeAnthropic, MODEL, script, SYSTEM } from './harness.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const json = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** A stand-in for the engine: marks the last system block, the last tool and the last message block, and notes a tool result. */
function fakeRender(p: AnthropicPrompt): AnthropicPrompt {
  const out = json(p);
  const mark = (b: object, ttl?: '1h') => Object.assign(b, { cache_control: ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' } });
  if (out.system?.length) mark(out.system.at(-1)!, '1h');
  if (out.tools?.length) mark(out.tools.at(-1)!, '1h');
  const last = out.messages.at(-1)!.content as ContentBlockParam[];
  mark(last.at(-1)!);
  // Replace the first tool result's payload with a note, as a prune would.
  for (const m of out.messages) {
    const r = (m.content as ContentBlockParam[]).find((b) => b.type === 'tool_result');
    if (r && r.type === 'tool_result' && out.messages.indexOf(m) > 0) {
      r.content = '[pruned: Read result; recall("turns/1/rounds/1/results/x")]';
      break;
    }
  }
  return out;
}

function roundTrip(rendered: AnthropicPrompt[]): LanguageModelMiddleware {
  return {
    transformParams: async ({ params, type }) => {
      const before = toAnthropicPrompt(params, type);
      const out = fakeRender(before);
      rendered.push(out);
      return fromAnthropicPrompt(params, out, before);
    },
  };
}

function expectWire(server: FakeMessagesServer, rendered: AnthropicPrompt[]): void {
  const sent = bodies(server);
  expect(sent).toHaveLength(rendered.length);
  sent.forEach((body, i) => {
    const want = json(rendered[i]!);
    expect({ tools: body.tools, system: body.system, messages: body.messages }).toEqual({ tools: want.tools, system: want.system, messages: want.messages });
  });
}

describe('AI SDK prompt ⇄ Anthropic params', () => {
  it('generateText tool loop: the wire bytes are the rendered params, markers included', async () => {
    const fake = await fakeAnthropic({ script: script(1, 3) });
    server = fake.server;
    const rendered: AnthropicPrompt[] = [];
    const model = wrapLanguageModel({ model: fake.provider(MODEL), middleware: roundTrip(rendered) });
    const result = await generateText({ model, instructions: SYSTEM, prompt: 'Task 1: tidy up the modules.', tools: agentTools(), stopWhen: stepCountIs(10) });
    expect(result.steps).toHaveLength(4);
    expectWire(server, rendered);
    // the note replaced the payload on the wire
    expect(JSON.stringify(bodies(server)[2]!.messages)).toContain('[pruned: Read result');
  });

  it('streamText tool loop: same, with the provider adding eager_input_streaming to the tools', async () => {
    const fake = await fakeAnthropic({ script: script(1, 2) });
    server = fake.server;
    const rendered: AnthropicPrompt[] = [];
    const model = wrapLanguageModel({ model: fake.provider(MODEL), middleware: roundTrip(rendered) });
    const result = streamText({ model, instructions: SYSTEM, prompt: 'Task 1: tidy up.', tools: agentTools(), stopWhen: stepCountIs(10) });
    await result.consumeStream();
    expect(await result.steps).toHaveLength(3);
    expectWire(server, rendered);
    expect((bodies(server)[0]!.tools![0] as { eager_input_streaming?: boolean }).eager_input_streaming).toBe(true);
  });

  it('maps multiple system messages, JSON and error results, and merges consecutive messages', async () => {
    const fake = await fakeAnthropic({ script: [[{ type: 'text', text: 'ok' }]] });
    server = fake.server;
    const rendered: AnthropicPrompt[] = [];
    const model = wrapLanguageModel({ model: fake.provider(MODEL), middleware: roundTrip(rendered) });
    const messages: ModelMessage[] = [
      { role: 'system', content: 'second system block' },
      { role: 'user', content: 'hello' },
      { role: 'user', content: [{ type: 'text', text: 'and more' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'Grep', input: { pattern: 'x' } },
          { type: 'text', text: 'looking' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'Read', input: { path: 'a' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'Grep', output: { type: 'json', value: { matches: ['a:1'] } } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'Read', output: { type: 'error-text', value: 'no such file' } },
        ],
      },
      { role: 'user', content: 'go on' },
    ];
    await generateText({ model, instructions: SYSTEM, messages, tools: agentTools(), allowSystemInMessages: true });
    expectWire(server, rendered);
    const before = rendered[0]!;
    expect(before.system).toHaveLength(2);
    expect(before.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // text before tool_use, as the provider orders it
    expect((before.messages[1]!.content as ContentBlockParam[]).map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
  });

  it('refuses shapes it does not map, in words', () => {
    const base = { prompt: [] as never[] };
    const call = (prompt: unknown, extra: object = {}) => ({ ...base, ...extra, prompt }) as unknown as Parameters<typeof toAnthropicPrompt>[0];
    const cases: [unknown, string][] = [
      [
        [{ role: 'user', content: [{ type: 'file', data: { type: 'reference', reference: { anthropic: 'file_1' } }, mediaType: 'application/pdf' }] }],
        'given by provider reference',
      ],
      [[{ role: 'user', content: [{ type: 'file', data: { type: 'data', data: 'AAAA' }, mediaType: 'audio/wav' }] }], 'user file part of media type audio/wav'],
      [
        [
          { role: 'user', content: [{ type: 'text', text: 'a' }] },
          { role: 'system', content: 'late' },
          { role: 'user', content: [{ type: 'text', text: 'b' }] },
        ],
        'system message after',
      ],
      [
        [
          { role: 'user', content: [{ type: 'text', text: 'a' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'prefill' }] },
        ],
        'assistant prefill',
      ],
    ];
    for (const [prompt, words] of cases) {
      expect(() => toAnthropicPrompt(call(prompt), 'generate')).toThrow(UnmappablePromptError);
      expect(() => toAnthropicPrompt(call(prompt), 'generate')).toThrow(words);
    }
    const providerTool = { type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search', args: {} };
    expect(() => toAnthropicPrompt(call([{ role: 'user', content: [{ type: 'text', text: 'a' }] }], { tools: [providerTool] }), 'generate')).toThrow(
      'provider tool',
    );
  });
});

describe('a tool_use input the engine replaced', () => {
  it('a pruned tool call input goes to the provider as rendered (the note), not as the original (found by test/property/ai-sdk.ts)', () => {
    const input = { path: 'src/a.ts', content: 'x'.repeat(3000) };
    const call = {
      prompt: [
        { role: 'user' as const, content: [{ type: 'text' as const, text: 'Write it.' }] },
        { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'toolu_1', toolName: 'Write', input }] },
        {
          role: 'tool' as const,
          content: [{ type: 'tool-result' as const, toolCallId: 'toolu_1', toolName: 'Write', output: { type: 'text' as const, value: 'ok' } }],
        },
        { role: 'user' as const, content: [{ type: 'text' as const, text: 'Next.' }] },
      ],
    };
    const before = toAnthropicPrompt(call, 'generate');
    const rendered = json(before);
    const note = { hidden: '[pruned: Write input, 3,030 chars; recall("turns/1/rounds/1/calls/toolu_1")]' };
    (rendered.messages[1]!.content as ContentBlockParam[])[0] = { type: 'tool_use', id: 'toolu_1', name: 'Write', input: note };
    const next = fromAnthropicPrompt(call, rendered, before);
    const part = (next.prompt[1]!.content as { type: string; input?: unknown }[])[0]!;
    expect(part.input).toEqual(note);
    // an untouched input is the caller's own part
    const same = fromAnthropicPrompt(call, json(before), before);
    expect((same.prompt[1]!.content as unknown[])[0]).toEqual(call.prompt[1]!.content[0]);
  });
});

describe('Converse cachePoints on messages', () => {
  // @ai-sdk/amazon-bedrock 3.x (ai 5) reads cachePoint on messages only: a marker on a message's last part goes on the
  // message (4.x and 5.x put a message's right after its last part, so the request is the same there); a user message
  // marked on an earlier part (the new user text, with the tail after it) is cut there. The real 3.x provider:
  // test/consumer/ai-sdk-versions.consumer.ts.
  it('a marker on a message’s last part is on the message; a user message is cut after an earlier marked part', () => {
    const call = {
      prompt: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'Read it.' },
            { type: 'text' as const, text: 'Live view.' },
          ],
        },
        { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'toolu_1', toolName: 'Read', input: { path: 'a.ts' } }] },
        {
          role: 'tool' as const,
          content: [{ type: 'tool-result' as const, toolCallId: 'toolu_1', toolName: 'Read', output: { type: 'text' as const, value: 'ok' } }],
        },
      ],
    };
    const before = toAnthropicPrompt(call, 'generate');
    const rendered = json(before);
    const mark = (m: number, b: number) => Object.assign((rendered.messages[m]!.content as ContentBlockParam[])[b]!, { cache_control: { type: 'ephemeral' } });
    mark(0, 0);
    mark(1, 0);
    const next = fromAnthropicPrompt(call, rendered, before, markerTarget('bedrock-converse', resolveProfile(MODEL)));
    const cachePoint = { bedrock: { cachePoint: { type: 'default' } } };
    const [user, tail, assistant, tool] = next.prompt as { role: string; providerOptions?: unknown; content: { text?: string; providerOptions?: unknown }[] }[];
    // The provider joins consecutive user messages: the same blocks, the cachePoint right after "Read it."
    expect([user!.role, tail!.role]).toEqual(['user', 'user']);
    expect(user!.content.map((p) => [p.text, p.providerOptions])).toEqual([['Read it.', undefined]]);
    expect(user!.providerOptions).toEqual(cachePoint);
    expect(tail!.content.map((p) => [p.text, p.providerOptions])).toEqual([['Live view.', undefined]]);
    expect(tail!.providerOptions).toBeUndefined();
    expect(assistant!.providerOptions).toEqual(cachePoint);
    expect(assistant!.content[0]!.providerOptions).toBeUndefined();
    expect(tool!.providerOptions).toBeUndefined();
  });
});

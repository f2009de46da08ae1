/**
 * The middleware at its edges: the caller's own cache markers, and input it
 * cannot handle (an unmappable prompt, an unsupported provider, no
 * conversation id, a failing store). Each time: a valid request, one warning.
 */
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { generateText, stepCountIs, wrapLanguageModel, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import type { ConversationStore } from '../../../src/conversation/types.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { InvalidOptionError } from '../../../src/errors.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools, bodies, fakeAnthropic, MODEL, script, SYSTEM } from './harness.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function countMarkers(body: MessageCreateParamsBase): number {
  return (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
}

const strip = (body: MessageCreateParamsBase) => JSON.parse(JSON.stringify(body, (k, v) => (k === 'cache_control' ? undefined : v))) as MessageCreateParamsBase;

describe('the caller’s own cacheControl', () => {
  it('is removed with one warning per call: the engine’s markers are the only ones sent (never a fifth)', async () => {
    const run = async (theirs: boolean) => {
      const fake = await fakeAnthropic({ script: script(1, 3) });
      servers.push(fake.server);
      const warnings: CachepointWarning[] = [];
      const model = wrapLanguageModel({
        model: fake.provider(MODEL),
        middleware: cachepointMiddleware({ conversationId: 'c', store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
      });
      const marked = { anthropic: { cacheControl: { type: 'ephemeral' as const } } };
      await generateText({
        model,
        instructions: { role: 'system', content: SYSTEM, ...(theirs ? { providerOptions: marked } : {}) },
        prompt: 'Task 1',
        tools: agentTools(),
        stopWhen: stepCountIs(10),
        // request-level automatic caching, and a marker on the last message of every step
        ...(theirs
          ? {
              providerOptions: marked,
              prepareStep: ({ messages }: { messages: ModelMessage[] }) => ({
                messages: messages.map((m, i) => (i === messages.length - 1 ? { ...m, providerOptions: marked } : m)),
              }),
            }
          : {}),
      });
      return { sent: bodies(fake.server), warnings, ok: fake.server.requests.every((r) => r.status === 200) };
    };
    const withTheirs = await run(true);
    const without = await run(false);
    expect(withTheirs.ok).toBe(true);
    expect(withTheirs.sent).toHaveLength(4);
    for (const body of withTheirs.sent) expect(countMarkers(body)).toBeLessThanOrEqual(4);
    // exactly what the engine sends when the caller has no markers
    expect(withTheirs.sent).toEqual(without.sent);
    expect(withTheirs.warnings.map((w) => w.code)).toEqual(['caller_cache_control', 'caller_cache_control', 'caller_cache_control', 'caller_cache_control']);
    expect(without.warnings).toEqual([]);
  });
});

describe('input the middleware cannot handle goes through unchanged, with one warning', () => {
  async function compare(messages: ModelMessage[], options: { conversationId?: string; store?: ConversationStore } = {}) {
    const plain = await fakeAnthropic({ script: [[{ type: 'text', text: 'ok' }]] });
    const wrapped = await fakeAnthropic({ script: [[{ type: 'text', text: 'ok' }]] });
    servers.push(plain.server, wrapped.server);
    const warnings: CachepointWarning[] = [];
    const model = wrapLanguageModel({ model: wrapped.provider(MODEL), middleware: cachepointMiddleware({ ...options, onWarning: (w) => warnings.push(w) }) });
    const result = await generateText({ model, instructions: SYSTEM, messages, tools: agentTools() });
    await generateText({ model: plain.provider(MODEL), instructions: SYSTEM, messages, tools: agentTools() });
    return { result, warnings, sent: bodies(wrapped.server), unwrapped: bodies(plain.server), status: wrapped.server.requests.map((r) => r.status) };
  }

  it('an unmappable prompt (audio in a tool result)', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Take a screenshot.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_1', toolName: 'Read', input: { path: 'shot.png' } }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'toolu_1',
            toolName: 'Read',
            output: { type: 'content', value: [{ type: 'file-data', data: png, mediaType: 'audio/wav' }] },
          },
        ],
      },
    ];
    const r = await compare(messages, { conversationId: 'img', store: new MemoryConversationStore() });
    expect(r.status).toEqual([200]);
    expect(r.sent).toEqual(r.unwrapped);
    expect(r.warnings.map((w) => w.code)).toEqual(['unmappable_prompt']);
    expect(r.warnings[0]!.message).toContain('file part (audio/wav) in the result of tool "Read"');
    // the warning also reaches the AI SDK's own warnings
    expect(r.result.warnings?.some((w) => w.type === 'other' && w.message.includes('cachepoint'))).toBe(true);
  });

  it('no conversation id', async () => {
    const r = await compare([{ role: 'user', content: 'hello' }]);
    expect(r.status).toEqual([200]);
    expect(r.sent).toEqual(r.unwrapped);
    expect(r.warnings.map((w) => w.code)).toEqual(['no_conversation_id']);
  });

  it('a store that is down: a valid request (rendered without stored decisions), never a broken one', async () => {
    const down: ConversationStore = {
      load: () => Promise.reject(new Error('ECONNREFUSED')),
      save: () => Promise.reject(new Error('ECONNREFUSED')),
      delete: () => Promise.reject(new Error('ECONNREFUSED')),
    };
    const r = await compare([{ role: 'user', content: 'hello' }], { conversationId: 'down', store: down });
    expect(r.status).toEqual([200]);
    expect(strip(r.sent[0]!)).toEqual(strip(r.unwrapped[0]!));
    // the response's usage could not be recorded: said once, the response is unaffected
    expect(r.warnings.map((w) => w.code)).toEqual(['usage_not_recorded']);
    expect(r.result.text).toBe('ok');
  });

  it('an unsupported provider', async () => {
    const inner = () =>
      new MockLanguageModelV4({
        provider: 'google.generative-ai',
        modelId: 'gemini-2.5-pro',
        doGenerate: {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
          warnings: [],
        },
      });
    const plain = inner();
    const mock = inner();
    const warnings: CachepointWarning[] = [];
    const model = wrapLanguageModel({ model: mock, middleware: cachepointMiddleware({ conversationId: 'x', onWarning: (w) => warnings.push(w) }) });
    const marked = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    await generateText({ model, instructions: SYSTEM, prompt: 'hi', providerOptions: marked });
    await generateText({ model: plain, instructions: SYSTEM, prompt: 'hi', providerOptions: marked });
    const [a, b] = [mock.doGenerateCalls[0]!, plain.doGenerateCalls[0]!];
    expect({ ...a, abortSignal: undefined }).toEqual({ ...b, abortSignal: undefined });
    expect(warnings.map((w) => w.code)).toEqual(['unsupported_provider']);
    expect(warnings[0]!.message).toContain('google.generative-ai');
  });
});

describe('options that can never work', () => {
  it('are refused when the middleware is made, naming the option: not a warning on every call, nor a TypeError inside one', async () => {
    // Each of these used to be taken: the first four then failed every call into prepare_failed (sent
    // unchanged, no caching, a warning per call), and onWarning: 'x' threw a TypeError out of the call.
    const bad: [string, Record<string, unknown>][] = [
      ['conversationId', { conversationId: 42 }],
      ['conversationId', { conversationId: '' }],
      ['store', { store: {} }],
      ['store', { store: Promise.resolve(new MemoryConversationStore()) }],
      ['tail', { tail: 42 }],
      ['policy', { render: { policy: 'cheap' } }],
      ['render', { render: 'economy' }],
      ['onWarning', { onWarning: 'console' }],
      ['onPlan', { onPlan: {} }],
      ['supports', { supports: ['anthropic.messages'] }],
      ['now', { now: 1000 }],
    ];
    for (const [option, options] of bad) {
      const err = (() => {
        try {
          cachepointMiddleware(options as never);
        } catch (e) {
          return e;
        }
      })();
      expect(err, JSON.stringify(options)).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe(option);
    }
    // What works is still taken: a fixed id or a function of the call, a string, blocks or a function as the tail.
    const fake = await fakeAnthropic({ script: [[{ type: 'text', text: 'ok' }]] });
    servers.push(fake.server);
    const warnings: CachepointWarning[] = [];
    const middleware = cachepointMiddleware({
      conversationId: () => 'fine',
      store: new MemoryConversationStore(),
      tail: [{ type: 'text', text: 'live view' }],
      render: { policy: 'economy' },
      onWarning: (w) => warnings.push(w),
      onPlan: () => undefined,
      supports: () => true,
      now: () => 1000,
    });
    await generateText({ model: wrapLanguageModel({ model: fake.provider(MODEL), middleware }), instructions: SYSTEM, prompt: 'hi' });
    expect(warnings).toEqual([]);
    expect(countMarkers(bodies(fake.server)[0]!)).toBeGreaterThan(0);
  });
});

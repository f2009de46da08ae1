/**
 * The stream stays a stream: parts pass the middleware as the model produces
 * them (a text delta reaches the caller before the model has finished), and the
 * usage of the `finish` part is recorded before `finish` is passed on.
 */
import { streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { conversationStats } from '../../../src/conversation/prepare.js';
import { cachepointMiddleware, reportedUsage } from '../../../src/integrations/ai-sdk/index.js';
import type { StreamPart } from '../../../src/integrations/ai-sdk/types.js';
import { MODEL, SYSTEM } from './harness.js';

describe('wrapStream', () => {
  it('passes each part on as it arrives, and records the usage at finish', async () => {
    let push!: (p: StreamPart) => void;
    let close!: () => void;
    const stream = new ReadableStream<StreamPart>({
      start(controller) {
        push = (p) => controller.enqueue(p);
        close = () => controller.close();
      },
    });
    const mock = new MockLanguageModelV4({ provider: 'anthropic.messages', modelId: MODEL, doStream: { stream } });
    const store = new MemoryConversationStore();
    const model = wrapLanguageModel({ model: mock, middleware: cachepointMiddleware({ conversationId: 's', store }) });
    const result = streamText({ model, instructions: SYSTEM, prompt: 'hello' });
    const reader = result.textStream[Symbol.asyncIterator]();

    push({ type: 'stream-start', warnings: [] });
    push({ type: 'text-start', id: 't' });
    push({ type: 'text-delta', id: 't', delta: 'Hel' });
    // The model has not finished, yet the caller already reads the first delta.
    expect((await reader.next()).value).toBe('Hel');
    expect((await conversationStats({ conversationId: 's', store }))?.pendingUsage).toBe(true);

    push({ type: 'text-delta', id: 't', delta: 'lo' });
    expect((await reader.next()).value).toBe('lo');
    push({ type: 'text-end', id: 't' });
    push({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { inputTokens: { total: 2100, noCache: 100, cacheRead: 0, cacheWrite: 2000 }, outputTokens: { total: 2, text: 2, reasoning: undefined } },
      providerMetadata: {
        anthropic: {
          usage: {
            input_tokens: 100,
            cache_creation_input_tokens: 2000,
            cache_read_input_tokens: 0,
            cache_creation: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 0 },
            output_tokens: 2,
          },
        },
      },
    });
    close();
    expect((await reader.next()).done).toBe(true);
    const stats = await conversationStats({ conversationId: 's', store });
    expect(stats?.pendingUsage).toBe(false);
    expect(stats?.totals).toMatchObject({ requests: 1, input: 100, cacheWrite: 2000, cacheRead: 0, output: 2 });
  });
});

describe('reportedUsage', () => {
  const usage = { inputTokens: { total: 1500, noCache: 100, cacheRead: 1000, cacheWrite: 400 }, outputTokens: { total: 7, text: 7, reasoning: undefined } };
  it('prefers the API usage in the provider metadata (with the 5m / 1h split)', () => {
    const raw = {
      input_tokens: 100,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 400,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 300 },
      output_tokens: 7,
    };
    expect(reportedUsage({ anthropic: { usage: raw } }, usage)).toEqual(raw);
  });
  it('falls back to the standardized usage, and says nothing when there is none', () => {
    expect(reportedUsage(undefined, usage)).toEqual({ input_tokens: 100, cache_read_input_tokens: 1000, cache_creation_input_tokens: 400, output_tokens: 7 });
    expect(reportedUsage({ other: {} }, undefined)).toBeUndefined();
  });
});

/**
 * One conversation served by generateText and by streamText: `@ai-sdk/anthropic` adds `eager_input_streaming: true`
 * to every function tool of a streamed call only, so a switch changes the tools, the front of the cached prefix, and
 * that request re-writes the whole cache. Nothing said so (no warning; the plan's `tools_changed` resync is seen only
 * by an `onPlan` observer): a user saw the hit ratio fall and no reason. The switching call now carries a
 * `tool_streaming_switched` warning naming the fix (`providerOptions.anthropic.toolStreaming: false` on the streamed
 * calls), and with that option the same switch reads the previous request's cache.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import type { PreparePlan } from '../../../src/conversation/prepare.js';
import { startFakeServer } from '../../../src/testing/fake-server.js';
import { agentTools, closedAfterEach, fakeAnthropic, MODEL, script, SYSTEM } from './harness.js';

const servers = closedAfterEach();

async function conversation(streamOptions: { anthropic?: { toolStreaming: boolean } }) {
  const fake = await fakeAnthropic({ script: script(2, 1) });
  servers.push(fake.server);
  const warnings: CachepointWarning[] = [];
  const model = wrapLanguageModel({
    model: fake.provider(MODEL),
    middleware: cachepointMiddleware({ conversationId: 'c', store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
  });
  const tools = agentTools();
  const messages: ModelMessage[] = [{ role: 'user', content: 'Task 1' }];
  const first = await generateText({ model, instructions: SYSTEM, messages, tools, stopWhen: stepCountIs(5) });
  messages.push(...first.responseMessages, { role: 'user', content: 'Task 2' });
  const second = streamText({ model, instructions: SYSTEM, messages, tools, stopWhen: stepCountIs(5), providerOptions: streamOptions });
  await second.consumeStream();
  const reads = fake.server.requests
    .filter((r) => r.path === '/v1/messages')
    .map((r) => (r.response as { usage: { cache_read_input_tokens: number } }).usage.cache_read_input_tokens);
  return { warnings, reads, statuses: fake.server.requests.map((r) => r.status) };
}

describe('a conversation that switches between generateText and streamText', () => {
  it('warns at the switch, naming the option that keeps one tool form', async () => {
    const r = await conversation({});
    expect(r.statuses.every((s) => s === 200)).toBe(true);
    // The switch re-wrote everything from the tools on: what the warning is about.
    expect(r.reads[2]).toBe(0);
    expect(r.warnings.map((w) => w.code)).toEqual(['tool_streaming_switched']);
    expect(r.warnings[0]!.message).toContain('toolStreaming: false');
    expect(r.warnings[0]!.conversationId).toBe('c');
  });

  it('with toolStreaming: false on the streamed call: no warning, and the switch reads the cache', async () => {
    const r = await conversation({ anthropic: { toolStreaming: false } });
    expect(r.statuses.every((s) => s === 200)).toBe(true);
    expect(r.warnings).toEqual([]);
    expect(r.reads[2]).toBeGreaterThan(r.reads[1]!);
  });
});

describe('the same switch on OpenAI (Responses): its requests carry no eager-input flag', () => {
  it('is no tools change for the engine: no resync, the plan predicts the read the server reports, no warning', async () => {
    const server = await startFakeServer({ script: script(2, 1) });
    servers.push(server);
    const warnings: CachepointWarning[] = [];
    const plans: PreparePlan[] = [];
    const model = wrapLanguageModel({
      model: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).responses('gpt-5.6-terra'),
      middleware: cachepointMiddleware({
        conversationId: 'o',
        store: new MemoryConversationStore(),
        onWarning: (w) => warnings.push(w),
        onPlan: (e) => plans.push(e.plan),
      }),
    });
    const tools = agentTools();
    const messages: ModelMessage[] = [{ role: 'user', content: 'Task 1' }];
    const first = await generateText({ model, instructions: SYSTEM, messages, tools, stopWhen: stepCountIs(5) });
    messages.push(...first.responseMessages, { role: 'user', content: 'Task 2' });
    await streamText({ model, instructions: SYSTEM, messages, tools, stopWhen: stepCountIs(5) }).consumeStream();
    const reads = server.requests
      .filter((r) => r.path === '/v1/responses')
      .map((r) => (r.response as unknown as { usage: { input_tokens_details: { cached_tokens: number } } }).usage.input_tokens_details.cached_tokens);
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    expect(plans).toHaveLength(4);
    // The switch's request read the previous one's entry: the engine must not think its tools changed.
    expect(reads[2]).toBeGreaterThan(0);
    expect(plans.map((p) => p.resync?.reason)).toEqual([undefined, undefined, undefined, undefined]);
    expect(plans[2]!.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
  });
});

/**
 * GPT-5 models reason: every Responses answer starts with a `reasoning` item ("Be sure to include these items in your
 * input to the Responses API for subsequent turns of a conversation if you are manually managing context", openai
 * 6.49's ResponseReasoningItem; cookbook.openai.com/examples/responses_api/reasoning_items, May 2025), which
 * `@ai-sdk/openai` hands back as a reasoning part with `providerOptions.openai.itemId` (even with an empty summary).
 * The middleware mapped only Anthropic reasoning (a signature), so from the second step of any GPT-5 tool loop on
 * `openai.responses` every call went through unprepared (`unmappable_prompt`): no cache key, no markers, no stats.
 * The real provider against the fake server, which now answers a scripted thinking block with a reasoning item.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { conversationStats } from '../../../src/conversation/prepare.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { startFakeServer } from '../../../src/testing/fake-server.js';
import { bigRead, closedAfterEach } from './harness.js';
import type { ScriptEntry } from '../../../src/testing/fake-server-script.js';

const servers = closedAfterEach();

const tools = {
  Read: bigRead,
};

const script = (): ScriptEntry[] => [
  [
    { type: 'thinking', thinking: 'I should read a.ts and b.ts.' },
    { type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a.ts' } },
    { type: 'tool_use', id: 'call_2', name: 'Read', input: { path: 'b.ts' } },
  ],
  [
    { type: 'thinking', thinking: '' }, // no summary: the provider still gives a reasoning part (empty text)
    { type: 'tool_use', id: 'call_3', name: 'Read', input: { path: 'c.ts' } },
  ],
  [
    { type: 'thinking', thinking: 'All read.' },
    { type: 'text', text: 'Done.' },
  ],
];

type Usage = { input_tokens_details: { cached_tokens: number; cache_write_tokens: number } };

for (const [model, mode, store] of [
  ['gpt-5.6-terra', 'generate', undefined],
  ['gpt-5.6-terra', 'stream', undefined],
  ['gpt-5.4', 'generate', undefined],
  ['gpt-5.6-terra', 'generate', false],
] as const) {
  describe(`@ai-sdk/openai Responses, ${model}, ${mode}${store === false ? ', store: false' : ''}: reasoning items`, () => {
    it('every step is prepared, and each request reads what the previous one read and wrote', async () => {
      let clock = 0;
      const server = await startFakeServer({ script: script(), now: () => (clock += 5_000) });
      servers.push(server);
      const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' });
      const warnings: CachepointWarning[] = [];
      const conversations = new MemoryConversationStore();
      let now = 0;
      const wrapped = wrapLanguageModel({
        model: openai.responses(model),
        middleware: cachepointMiddleware({ conversationId: 'rs', store: conversations, now: () => (now += 5_000), onWarning: (w) => warnings.push(w) }),
      });
      const call = {
        model: wrapped,
        instructions: `You are careful. ${'Rules. '.repeat(800)}`,
        prompt: 'Go',
        tools,
        stopWhen: stepCountIs(10),
        ...(store === false ? { providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'] } } } : {}),
      };
      if (mode === 'generate') await generateText(call);
      else await streamText(call).consumeStream();
      expect(warnings).toEqual([]);
      const requests = server.requests.filter((r) => r.path === '/v1/responses');
      expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
      // The reasoning items went back (by reference, or inline with store: false), before their calls.
      const input = (requests[2]!.body as { input: { type?: string }[] }).input.map((i) => i.type ?? 'message');
      expect(input.filter((t) => t === (store === false ? 'reasoning' : 'item_reference'))).toHaveLength(2);
      expect((await conversationStats({ conversationId: 'rs', store: conversations }))?.totals.requests).toBe(3);
      const usage = requests.map((r) => (r.response as unknown as { usage: Usage }).usage.input_tokens_details);
      expect(usage[1]!.cached_tokens).toBeGreaterThan(0);
      for (let i = 1; i < usage.length; i++)
        expect(usage[i]!.cached_tokens).toBeGreaterThanOrEqual(usage[i - 1]!.cached_tokens + usage[i - 1]!.cache_write_tokens);
    });
  });
}

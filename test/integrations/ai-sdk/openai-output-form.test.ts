/**
 * `@ai-sdk/openai`'s Responses model sends a text or JSON tool output as a plain string, but as a one-part list when
 * the part carries a marker (`promptCacheBreakpoint`). With GPT-5.6's explicit markers, the newest tool result is a cache point
 * in one request and not in the next, so its bytes changed between the two: the entry the first request wrote was
 * never read, and every round re-wrote the conversation after the instructions (a bust every round). The middleware
 * now sends every tool output in list form, the marker on its last part. The real provider against the fake server.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { startFakeServer } from '../../../src/testing/fake-server.js';
import { bigRead, closedAfterEach } from './harness.js';

const servers = closedAfterEach();

const tools = {
  Read: bigRead,
  Stat: tool({
    description: 'Stats a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => ({ path, lines: 200, words: Array.from({ length: 150 }, (_, i) => `w${i}`) }),
  }),
};

describe('@ai-sdk/openai Responses with GPT-5.6 markers: tool outputs keep their bytes', () => {
  it('each request reads what the previous one read and wrote', async () => {
    let clock = 0;
    const server = await startFakeServer({
      script: [
        [{ type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a.ts' } }],
        [{ type: 'tool_use', id: 'call_2', name: 'Stat', input: { path: 'b.ts' } }],
        [{ type: 'tool_use', id: 'call_3', name: 'Read', input: { path: 'c.ts' } }],
        [{ type: 'text', text: 'Done.' }],
      ],
      now: () => (clock += 5_000),
    });
    servers.push(server);
    const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' });
    const warnings: CachepointWarning[] = [];
    let now = 0;
    const model = wrapLanguageModel({
      model: openai.responses('gpt-5.6-terra'),
      middleware: cachepointMiddleware({
        conversationId: 'form',
        store: new MemoryConversationStore(),
        now: () => (now += 5_000),
        onWarning: (w) => warnings.push(w),
      }),
    });
    await generateText({ model, instructions: `You are careful. ${'Rules. '.repeat(800)}`, prompt: 'Go', tools, stopWhen: stepCountIs(10) });
    expect(warnings).toEqual([]);
    const requests = server.requests.filter((r) => r.path === '/v1/responses');
    expect(requests).toHaveLength(4);
    const usage = requests.map(
      (r) => (r.response as unknown as { usage: { input_tokens_details: { cached_tokens: number; cache_write_tokens: number } } }).usage.input_tokens_details,
    );
    for (let i = 1; i < usage.length; i++)
      expect(usage[i]!.cached_tokens).toBeGreaterThanOrEqual(usage[i - 1]!.cached_tokens + usage[i - 1]!.cache_write_tokens);
    // The wire form: every tool output a list, marked or not.
    for (const r of requests)
      for (const item of (r.body as { input: { type?: string; output?: unknown }[] }).input)
        if (item.type === 'function_call_output') expect(Array.isArray(item.output)).toBe(true);
  });
});

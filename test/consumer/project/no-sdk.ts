/**
 * A consumer without @anthropic-ai/sdk (see no-sdk.consumer.ts): the packed
 * cachepoint next to `ai` only, compiled strict with skipLibCheck off, then
 * run. It uses the core (`prepare`, the pure functions), the AI SDK middleware
 * and the tool-result cache, asks `cachepoint/redis` for its stores without the
 * `redis` package installed, and prints what it saw as one JSON line.
 */
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  createTimeline,
  fileTag,
  MemoryConversationStore,
  prepare,
  render,
  startTurn,
  toAnthropic,
  ToolCache,
  type PrepareParams,
  type ToolCallResult,
} from 'cachepoint';
import { cachepointMiddleware, type CachepointWarning } from 'cachepoint/ai-sdk';
import { createRedisConversationStore, createRedisToolCacheStore, nodeRedisClient } from 'cachepoint/redis';

const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions and explain what you changed. '.repeat(150)}`;

// 1. The tool-result cache: a repeated read is a hit.
const cache = new ToolCache();
cache.register('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (args: { path: string }) => [fileTag(args.path)] });
const read = async (args: { path: string }) => `// ${args.path}\nexport const value = 1;\n`;
const first: ToolCallResult = await cache.call('Read', { path: 'src/a.ts' }, read, { scope: 'tenant', callId: 'toolu_1' });
const second: ToolCallResult = await cache.call('Read', { path: 'src/a.ts' }, read, { scope: 'tenant', callId: 'toolu_2' });

// 2. prepare with plain params (no SDK types anywhere), and the pure functions.
const params: PrepareParams = {
  model: 'claude-sonnet-4-6',
  system: SYSTEM,
  tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
  messages: [{ role: 'user', content: 'Tidy the modules.' }],
};
const prepared = await prepare({ ...params, max_tokens: 512 }, { conversationId: 'c', store: new MemoryConversationStore(), now: 1_000_000 });
const request = toAnthropic(render(startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: [SYSTEM] }), 'Hello'), { now: 0 }));

// 3. The AI SDK middleware around a (mock) Anthropic model.
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const reply = { content: [{ type: 'text' as const, text: 'ok' }], finishReason: { unified: 'stop' as const, raw: 'end_turn' }, usage, warnings: [] };
const mock = new MockLanguageModelV4({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-6', doGenerate: async () => reply });
const warnings: CachepointWarning[] = [];
const model = wrapLanguageModel({ model: mock, middleware: cachepointMiddleware({ conversationId: 'ai', onWarning: (w) => warnings.push(w) }) });
const answer = await generateText({ model, instructions: SYSTEM, prompt: 'hello' });

// 4. cachepoint/redis without its optional peer `redis`: each entry says what to install and what to pass instead.
const missing = async (create: () => Promise<unknown>) =>
  create().then(
    () => 'created',
    (err: Error) => err.message,
  );
const redisMissing = {
  conversationStore: await missing(() => createRedisConversationStore({ url: 'redis://127.0.0.1:1' })),
  toolCacheStore: await missing(() => createRedisToolCacheStore({ url: 'redis://127.0.0.1:1' })),
  client: await missing(() => nodeRedisClient({ url: 'redis://127.0.0.1:1' })),
};

console.log(
  JSON.stringify({
    redisMissing,
    toolCache: [first.cache.type, second.cache.type],
    prepareMarkers: JSON.stringify(prepared.params).split('"cache_control"').length - 1,
    prepareMessages: prepared.params.messages.length,
    toAnthropicMarkers: JSON.stringify(request).split('"cache_control"').length - 1,
    aiText: answer.text,
    aiMarkers: JSON.stringify(mock.doGenerateCalls[0]?.prompt ?? null).split('"cacheControl"').length - 1,
    aiWarnings: warnings.map((w) => w.code),
  }),
);

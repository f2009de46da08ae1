/**
 * The middleware beyond Anthropic: `@ai-sdk/openai` (Responses and Chat
 * Completions) and `@ai-sdk/amazon-bedrock`'s Converse models, the real
 * packages pointed at the fake server's OpenAI and Converse routes. A
 * `generateText` tool loop of three requests per provider: cache reads on
 * every request after the first, at most four markers / cache points per
 * request, the prompt cache key set to the conversation, the tail never marked.
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, providerFamily, type CachepointPlanEvent, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { startFakeServer, type FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools, script, SYSTEM } from './harness.js';

const TAIL = 'LIVE VIEW: 3 files open, budget 40% used.';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(): Promise<FakeMessagesServer> {
  let clock = 0;
  const server = await startFakeServer({ script: script(1, 2), now: () => (clock += 5_000) });
  servers.push(server);
  return server;
}

function middleware(conversationId: string, warnings: CachepointWarning[], plans: CachepointPlanEvent[] = []) {
  let clock = 0;
  return cachepointMiddleware({
    conversationId,
    store: new MemoryConversationStore(),
    tail: TAIL,
    now: () => (clock += 5_000),
    onWarning: (w) => warnings.push(w),
    onPlan: (e) => plans.push(e),
  });
}

/** The engine's cache points of a render that sit on a system block or a message block (tools take no marker on these providers). */
const promptMarkers = (e: CachepointPlanEvent): number => count({ system: e.request.system, messages: e.request.messages }, '"cache_control"');

/** Number of occurrences of `needle` in `body`'s JSON. */
const count = (body: unknown, needle: string): number => JSON.stringify(body).split(needle).length - 1;

/** The text of the content part / block that carries `TAIL`, found in a request body, to check it carries no marker. */
function tailCarrier(body: unknown): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      // A part (`text`), or a Chat Completions message whose one text part became its string `content`.
      for (const k of ['text', 'content']) if (typeof o[k] === 'string' && (o[k] as string).includes('LIVE VIEW')) found = o;
      Object.values(o).forEach(walk);
    }
  };
  walk(body);
  return found;
}

describe('@ai-sdk/openai through cachepointMiddleware', () => {
  it.each([
    ['responses', 'gpt-5.6-terra', '/v1/responses'],
    ['responses', 'gpt-5.4', '/v1/responses'],
    ['chat', 'gpt-5.6-terra', '/v1/chat/completions'],
    ['chat', 'gpt-5.4', '/v1/chat/completions'],
  ] as const)('%s on %s: prompt cache key, cached tokens on every request after the first', async (api, modelId, path) => {
    const server = await serve();
    const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' });
    const base = api === 'responses' ? openai.responses(modelId) : openai.chat(modelId);
    expect(providerFamily(base.provider)).toBe('openai');
    const warnings: CachepointWarning[] = [];
    const plans: CachepointPlanEvent[] = [];
    const model = wrapLanguageModel({ model: base, middleware: middleware(`oa-${api}-${modelId}`, warnings, plans) });
    await generateText({
      model,
      instructions: SYSTEM,
      prompt: 'Task 1',
      tools: agentTools(),
      stopWhen: stepCountIs(10),
      providerOptions: { openai: { store: false } },
    });
    expect(warnings).toEqual([]);
    const requests = server.requests.filter((r) => r.path === path);
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const markers = modelId.startsWith('gpt-5.6');
    requests.forEach((r, i) => {
      const body = r.body as Record<string, unknown>;
      expect(body['prompt_cache_key']).toBe(`oa-${api}-${modelId}`);
      const marks = count(body, '"prompt_cache_breakpoint"');
      if (markers) {
        // one marker per cache point of the render (on the same part), none elsewhere
        expect(marks).toBe(promptMarkers(plans[i]!));
        expect(marks).toBeGreaterThanOrEqual(1);
        expect(marks).toBeLessThanOrEqual(4);
        expect(body['prompt_cache_options']).toEqual({ mode: 'explicit' });
      } else {
        expect(marks).toBe(0);
        expect(body['prompt_cache_options']).toBeUndefined();
      }
      const tail = tailCarrier(body);
      expect(tail).toBeDefined();
      expect(tail?.['prompt_cache_breakpoint']).toBeUndefined();
      const usage = (r.response as unknown as { usage: Record<string, Record<string, number>> }).usage;
      const cached = (usage['input_tokens_details'] ?? usage['prompt_tokens_details'])!['cached_tokens']!;
      if (i > 0) expect(cached).toBeGreaterThan(0);
    });
  });
});

describe('@ai-sdk/amazon-bedrock (Converse) through cachepointMiddleware', () => {
  it('generate: cachePoint blocks on the cache points, reads on every request after the first', async () => {
    const server = await serve();
    const bedrock = createAmazonBedrock({ region: 'us-east-1', apiKey: 'test', baseURL: server.url });
    const base = bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(base.provider).toBe('amazon-bedrock');
    const warnings: CachepointWarning[] = [];
    const plans: CachepointPlanEvent[] = [];
    const model = wrapLanguageModel({ model: base, middleware: middleware('converse', warnings, plans) });
    await generateText({ model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) });
    expect(warnings).toEqual([]);
    const requests = server.requests.filter((r) => r.path.startsWith('/model/'));
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    requests.forEach((r, i) => {
      const body = r.body as { messages: { content: Record<string, unknown>[] }[] };
      const marks = count(body, '"cachePoint"');
      expect(marks).toBe(promptMarkers(plans[i]!));
      expect(marks).toBeGreaterThanOrEqual(1);
      expect(marks).toBeLessThanOrEqual(4);
      // The tail is the last block of the last message: no cachePoint after it.
      const last = body.messages.at(-1)!.content;
      expect(String(last.at(-1)?.['text'])).toContain('LIVE VIEW');
      const usage = (r.response as unknown as { usage: Record<string, number> }).usage;
      if (i > 0) expect(usage['cacheReadInputTokens']).toBeGreaterThan(0);
    });
  });
});

describe('markers of the caller on OpenAI', () => {
  it('removes a caller promptCacheBreakpoint and keeps the caller prompt cache key', async () => {
    const mock = new MockLanguageModelV4({
      provider: 'openai.responses',
      modelId: 'gpt-5.6-terra',
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
        warnings: [],
      },
    });
    const warnings: CachepointWarning[] = [];
    const model = wrapLanguageModel({ model: mock, middleware: middleware('own', warnings) });
    const own = { openai: { promptCacheBreakpoint: { mode: 'explicit' } } };
    await generateText({
      model,
      instructions: SYSTEM,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Task 1', providerOptions: own }] }],
      providerOptions: { openai: { promptCacheKey: 'mine' } },
    });
    expect(warnings.map((w) => w.code)).toEqual(['caller_cache_control']);
    const sent = mock.doGenerateCalls[0]!;
    expect(sent.providerOptions?.['openai']).toMatchObject({ promptCacheKey: 'mine', promptCacheOptions: { mode: 'explicit' } });
    const user = sent.prompt.find((m) => m.role === 'user')!;
    // the caller's part is re-created without its marker; the tail (last part) carries none
    expect(JSON.stringify(user.content.at(-1))).not.toContain('promptCacheBreakpoint');
    expect(count(sent.prompt, '"promptCacheBreakpoint"')).toBeLessThanOrEqual(4);
  });
});

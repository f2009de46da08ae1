/**
 * Claude through the Vercel AI Gateway (`gateway('anthropic/claude-sonnet-4.6')`,
 * and what ai's plain string model ids resolve to). The gateway provider posts
 * the call options themselves, `providerOptions` included, to
 * `{baseURL}/language-model`; the gateway runs the call on its Anthropic
 * provider and returns the result (or its stream parts as server-sent events).
 * Offline, a fetch shim plays the gateway: it runs the posted options through
 * the real `@ai-sdk/anthropic` model against the fake Messages API. What is
 * under test is ours: the gateway's Claude ids served as Anthropic (markers in
 * `providerOptions.anthropic.cacheControl`, the profile from the dotted id), and
 * every other gateway model sent unchanged with a warning.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { createGateway, generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, providerFamily, type CachepointMiddlewareOptions, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { engineModelId } from '../../../src/integrations/ai-sdk/providers.js';
import { resolveProfile } from '../../../src/models/profiles.js';
import { startFakeServer, type FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools, bodies, closedAfterEach, MODEL, script, SYSTEM } from './harness.js';

const servers = closedAfterEach();

/** A fetch that answers the gateway provider's calls the way the gateway does, on the fake Messages API. */
function gatewayShim(server: FakeMessagesServer, seen: string[]): typeof fetch {
  const anthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test-key' });
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.endsWith('/language-model')) return new Response('not found', { status: 404 });
    const headers = new Headers(init?.headers);
    seen.push(headers.get('ai-language-model-id') ?? '');
    const options = JSON.parse(String(init?.body));
    // The fake server answers one model; the gateway's id was checked above.
    const model = anthropic(MODEL);
    if (headers.get('ai-language-model-streaming') !== 'true') {
      const r = await model.doGenerate(options);
      return Response.json({ content: r.content, finishReason: r.finishReason, usage: r.usage, providerMetadata: r.providerMetadata, warnings: r.warnings });
    }
    const { stream } = await model.doStream(options);
    const encoder = new TextEncoder();
    const sse = stream.pipeThrough(new TransformStream({ transform: (part, c) => c.enqueue(encoder.encode(`data: ${JSON.stringify(part)}\n\n`)) }));
    return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
  };
}

/** Gateway model `id` wrapped in the middleware, the gateway played by `fetch` (default: the shim); and its warnings. */
function throughGateway(
  server: FakeMessagesServer,
  id: string,
  conversationId: string,
  extra: { readonly fetch?: typeof fetch; readonly seen?: string[]; readonly render?: CachepointMiddlewareOptions['render'] } = {},
) {
  const gateway = createGateway({ baseURL: `${server.url}/gateway`, apiKey: 'test', fetch: extra.fetch ?? gatewayShim(server, extra.seen ?? []) });
  const base = gateway(id);
  const warnings: CachepointWarning[] = [];
  const middleware = cachepointMiddleware({
    conversationId,
    store: new MemoryConversationStore(),
    ...(extra.render ? { render: extra.render } : {}),
    onWarning: (w) => warnings.push(w),
  });
  return { base, model: wrapLanguageModel({ model: base, middleware }), warnings };
}

function cachedEveryRequestAfterTheFirst(server: FakeMessagesServer, n: number): void {
  const requests = server.requests.filter((r) => r.path === '/v1/messages');
  expect(requests).toHaveLength(n);
  expect(requests.every((r) => r.status === 200)).toBe(true);
  const usage = requests.map((r) => (r.response as Message).usage);
  usage.slice(1).forEach((u, i) => expect(u.cache_read_input_tokens, `request ${i + 2}`).toBeGreaterThan(usage[i]!.cache_read_input_tokens ?? 0));
  for (const body of bodies(server)) {
    const markers = (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
    expect(markers).toBeGreaterThanOrEqual(2);
    expect(markers).toBeLessThanOrEqual(4);
  }
}

describe('Claude through the AI Gateway (gateway provider)', () => {
  it("the gateway's Claude ids are Anthropic, their dotted versions resolve to the model's profile; other gateway models are not served", () => {
    expect(providerFamily('gateway', 'anthropic/claude-sonnet-4.6')).toBe('anthropic');
    expect(providerFamily('gateway', 'openai/gpt-5')).toBeUndefined();
    expect(providerFamily('gateway')).toBeUndefined();
    for (const [id, profile] of [
      ['anthropic/claude-sonnet-4.6', 'claude-sonnet-4-6'],
      ['anthropic/claude-opus-4.5', 'claude-opus-4-5'],
      ['anthropic/claude-haiku-4.5', 'claude-haiku-4-5'],
      ['anthropic/claude-sonnet-5.5', 'claude-sonnet-5-5'],
      ['anthropic/claude-fable-5.1', 'claude-fable-5-1'],
      ['anthropic/claude-opus-5', 'claude-opus-5'],
    ] as const) {
      expect(resolveProfile(engineModelId('gateway', id)).id, id).toBe(profile);
    }
    // Ids of other providers are left as they are.
    expect(engineModelId('anthropic.messages', 'claude-sonnet-4.6')).toBe('claude-sonnet-4.6');
  });

  it.each(['generate', 'stream'] as const)('%s: cache points in the anthropic provider options, read on every request after the first', async (mode) => {
    const server = await startFakeServer({ script: script(1, 3) });
    servers.push(server);
    const seen: string[] = [];
    const { base, model, warnings } = throughGateway(server, 'anthropic/claude-sonnet-4.6', `gateway-${mode}`, { seen });
    expect(base.provider).toBe('gateway');
    const args = { model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) };
    if (mode === 'generate') await generateText(args);
    else await streamText(args).consumeStream();
    expect(warnings).toEqual([]);
    expect(seen).toEqual(Array(4).fill('anthropic/claude-sonnet-4.6'));
    cachedEveryRequestAfterTheFirst(server, 4);
  });

  it("the gateway's own caching option is removed with a warning (it would add a marker of its own); the other gateway options stay", async () => {
    const server = await startFakeServer({ script: script(1, 1) });
    servers.push(server);
    const posted: Record<string, unknown>[] = [];
    const shim = gatewayShim(server, []);
    const { model, warnings } = throughGateway(server, 'anthropic/claude-sonnet-4.6', 'gateway-caching', {
      fetch: async (input, init) => {
        posted.push(JSON.parse(String(init?.body)).providerOptions?.gateway ?? {});
        return shim(input, init);
      },
    });
    await generateText({
      model,
      instructions: SYSTEM,
      prompt: 'Task 1',
      tools: agentTools(),
      stopWhen: stepCountIs(10),
      providerOptions: { gateway: { caching: 'auto', order: ['anthropic'] } },
    });
    expect(posted).toEqual(Array(2).fill({ order: ['anthropic'] }));
    expect(warnings.filter((w) => w.code === 'caller_cache_control')).toHaveLength(2);
    cachedEveryRequestAfterTheFirst(server, 2);
  });

  it("a profile given under the gateway's own model id (render.profiles) is the one used: a -fast id is then served", async () => {
    const server = await startFakeServer({ script: script(1, 1) });
    servers.push(server);
    const id = 'anthropic/claude-opus-4.8-fast';
    const { model, warnings } = throughGateway(server, id, 'gateway-profiles', { render: { profiles: { [id]: resolveProfile('claude-opus-4-8') } } });
    await generateText({ model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) });
    expect(warnings).toEqual([]);
    cachedEveryRequestAfterTheFirst(server, 2);
  });

  it('another provider through the gateway is sent unchanged, with a warning naming the model', async () => {
    const server = await startFakeServer({ script: script(1, 1) });
    servers.push(server);
    const { model, warnings } = throughGateway(server, 'openai/gpt-5', 'gateway-openai');
    await generateText({ model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) });
    expect(warnings.map((w) => w.code)).toContain('unsupported_provider');
    expect(warnings.find((w) => w.code === 'unsupported_provider')!.message).toContain('"openai/gpt-5"');
    expect(bodies(server).every((b) => !JSON.stringify(b).includes('cache_control'))).toBe(true);
  });
});

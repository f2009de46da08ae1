/**
 * Claude on other clouds through the AI SDK: the Google Vertex and Amazon
 * Bedrock Anthropic providers reuse the Anthropic Messages model (provider ids
 * `googleVertex.anthropic.messages`, `bedrock.anthropic.messages`) and take
 * the same `providerOptions.anthropic.cacheControl`. Offline, they post to
 * the fake server's own Bedrock (InvokeModel) and Vertex (rawPredict) routes,
 * by their base URL only (model in the URL, `anthropic_version` in the body;
 * a Bedrock stream comes back as AWS event-stream `chunk` events). The cloud
 * model ids resolve to the model's profile by themselves.
 */
import { createAmazonBedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic';
import { createGoogleVertexAnthropic } from '@ai-sdk/google-vertex/anthropic';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { startFakeServer } from '../../../src/testing/fake-server.js';
import { agentTools, script, SYSTEM } from './harness.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The request bodies the cloud routes received (the Messages API body, `anthropic_version` in it, the model in the URL). */
const cloudBodies = (server: FakeMessagesServer) => server.requests.map((r) => r.body as Record<string, unknown>);

function expectCached(server: FakeMessagesServer, n: number, route: RegExp): void {
  const requests = server.requests;
  expect(requests.every((r) => route.test(decodeURIComponent(r.path)))).toBe(true);
  expect(requests).toHaveLength(n);
  expect(requests.every((r) => r.status === 200)).toBe(true);
  const usage = requests.map((r) => (r.response as Message).usage);
  usage.slice(1).forEach((u) => expect(u.cache_read_input_tokens).toBeGreaterThan(0));
  for (const body of cloudBodies(server)) {
    const markers = (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
    expect(markers).toBeGreaterThanOrEqual(2);
    expect(markers).toBeLessThanOrEqual(4);
  }
}

describe('Anthropic on Google Vertex (@ai-sdk/google-vertex/anthropic)', () => {
  it.each(['generate', 'stream'] as const)('%s: the same cache points, read on every request after the first', async (mode) => {
    const server = await startFakeServer({ script: script(1, 3) });
    servers.push(server);
    // The fake server answers Vertex's rawPredict route itself: only the base URL (the provider's default names the
    // project's publisher path on aiplatform.googleapis.com) and a token stand-in.
    const vertex = createGoogleVertexAnthropic({
      project: 'p',
      location: 'us-east5',
      baseURL: `${server.url}/v1/projects/p/locations/us-east5/publishers/anthropic/models`,
      generateAuthToken: async () => 'token',
    });
    const base = vertex('claude-sonnet-4-6@20250929');
    expect(base.provider).toBe('googleVertex.anthropic.messages');
    const warnings: CachepointWarning[] = [];
    const model = wrapLanguageModel({
      model: base,
      middleware: cachepointMiddleware({ conversationId: `vertex-${mode}`, store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
    });
    const args = { model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) };
    if (mode === 'generate') await generateText(args);
    else await streamText(args).consumeStream();
    expect(warnings).toEqual([]);
    expectCached(server, 4, new RegExp(`/publishers/anthropic/models/claude-sonnet-4-6@20250929:${mode === 'stream' ? 'streamRawPredict' : 'rawPredict'}$`));
  });
});

describe('Anthropic on Amazon Bedrock (@ai-sdk/amazon-bedrock/anthropic)', () => {
  it.each(['generate', 'stream'] as const)('%s: the same cache points, read on every request after the first', async (mode) => {
    const server = await startFakeServer({ script: script(1, 3) });
    servers.push(server);
    // The fake server answers Bedrock's InvokeModel routes itself (a stream as AWS event-stream chunks): only the base URL.
    const bedrock = createAmazonBedrockAnthropic({ region: 'us-east-1', apiKey: 'test', baseURL: server.url });
    const base = bedrock('us.anthropic.claude-sonnet-4-6-v1:0');
    expect(base.provider).toBe('bedrock.anthropic.messages');
    const warnings: CachepointWarning[] = [];
    const model = wrapLanguageModel({
      model: base,
      middleware: cachepointMiddleware({ conversationId: `bedrock-${mode}`, store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
    });
    const args = { model, instructions: SYSTEM, prompt: 'Task 1', tools: agentTools(), stopWhen: stepCountIs(10) };
    if (mode === 'generate') await generateText(args);
    else expect(await streamText(args).text).toBe('Turn 1 done: the change is in src/mod-1.ts.');
    expect(warnings).toEqual([]);
    expectCached(server, 4, new RegExp(`^/model/us.anthropic.claude-sonnet-4-6-v1:0/${mode === 'stream' ? 'invoke-with-response-stream' : 'invoke'}$`));
  });
});

/**
 * `@ai-sdk/anthropic` 4.x reads a call's options under the provider's own key too (`googleVertex`, its legacy
 * `vertex`, `bedrock`: the provider id before the first dot) and merges them over `anthropic`'s, so a caller's
 * `providerOptions.googleVertex.cacheControl` on the call became request-level automatic caching (a marker on the
 * last block, the volatile tail, and a fifth one next to four cache points): sent with no warning. It is the
 * caller's marker like `anthropic.cacheControl`: removed, with `caller_cache_control`.
 */
describe("the caller's cacheControl under the cloud provider's own options key", () => {
  const cases = [
    ['googleVertex', 'vertex'],
    ['vertex', 'vertex'],
    ['bedrock', 'bedrock'],
  ] as const;
  it.each(cases)('%s.cacheControl on the call (%s): removed, with a warning; the request is the one sent without it', async (key, cloud) => {
    const sent: unknown[] = [];
    for (const own of [true, false]) {
      const server = await startFakeServer({ script: script(1, 0) });
      servers.push(server);
      const base =
        cloud === 'vertex'
          ? createGoogleVertexAnthropic({
              project: 'p',
              location: 'us-east5',
              baseURL: `${server.url}/v1/projects/p/locations/us-east5/publishers/anthropic/models`,
              generateAuthToken: async () => 'token',
            })('claude-sonnet-4-6@20250929')
          : createAmazonBedrockAnthropic({ region: 'us-east-1', apiKey: 'test', baseURL: server.url })('us.anthropic.claude-sonnet-4-6-v1:0');
      const warnings: CachepointWarning[] = [];
      const model = wrapLanguageModel({
        model: base,
        middleware: cachepointMiddleware({ conversationId: `own-${key}`, store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
      });
      await generateText({
        model,
        instructions: SYSTEM,
        prompt: 'Task 1',
        ...(own ? { providerOptions: { [key]: { cacheControl: { type: 'ephemeral' } } } } : {}),
      });
      const [body] = cloudBodies(server);
      expect((body as { cache_control?: unknown }).cache_control).toBeUndefined();
      expect(warnings.map((w) => w.code)).toEqual(own ? ['caller_cache_control'] : []);
      sent.push(body);
    }
    expect(sent[0]).toEqual(sent[1]);
  });
});

/**
 * Claude on Bedrock and Vertex against the fake server with the platforms' own clients (`AnthropicBedrock`,
 * `AnthropicVertex`), pointed at it by `baseURL` alone: InvokeModel and rawPredict, streamed and not, answered as
 * the Messages route answers (cache usage from the simulator, so the second request reads what the first wrote),
 * a Bedrock stream as AWS event-stream chunks; a body without `anthropic_version` is refused as the platforms do.
 */
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const SYSTEM = [{ type: 'text' as const, text: `You are careful. ${'Follow the conventions. '.repeat(400)}`, cache_control: { type: 'ephemeral' as const } }];
const ask = (n: number) => ({ max_tokens: 64, system: SYSTEM, messages: [{ role: 'user' as const, content: `Question ${n}` }] });

async function server(): Promise<FakeMessagesServer> {
  const s = await startFakeServer({ script: [[{ type: 'text', text: 'One.' }], [{ type: 'text', text: 'Two.' }]] });
  servers.push(s);
  return s;
}

describe('the fake server as Bedrock (InvokeModel) and Vertex (rawPredict)', () => {
  it.each([false, true])('AnthropicBedrock, stream %s: the model from the URL, the second request reads the cache', async (stream) => {
    const s = await server();
    const bedrock = new AnthropicBedrock({ awsRegion: 'us-east-1', awsAccessKey: 'test', awsSecretKey: 'test', baseURL: s.url, maxRetries: 0 });
    const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const texts: string[] = [];
    for (const n of [1, 2]) {
      const message = stream ? await bedrock.messages.stream({ model, ...ask(n) }).finalMessage() : await bedrock.messages.create({ model, ...ask(n) });
      texts.push(message.content[0]!.type === 'text' ? message.content[0]!.text : '');
      if (n === 2) expect(message.usage.cache_read_input_tokens).toBeGreaterThan(0);
    }
    expect(texts).toEqual(['One.', 'Two.']);
    expect(s.requests.map((r) => [r.status, decodeURIComponent(r.path), r.stream])).toEqual(
      [1, 2].map(() => [200, `/model/${model}/${stream ? 'invoke-with-response-stream' : 'invoke'}`, stream]),
    );
    expect(s.requests[0]!.body).toMatchObject({ anthropic_version: expect.any(String) });
  });

  it.each([false, true])('AnthropicVertex, stream %s: the model from the URL, the second request reads the cache', async (stream) => {
    const s = await server();
    const vertex = new AnthropicVertex({
      region: 'us-east5',
      projectId: 'my-project',
      baseURL: `${s.url}/v1`,
      // A stand-in for google-auth-library's client (no Google credentials offline).
      authClient: { projectId: 'my-project', getRequestHeaders: async () => new Headers({ authorization: 'Bearer test' }) } as never,
      maxRetries: 0,
    });
    const model = 'claude-sonnet-4-5@20250929';
    for (const n of [1, 2]) {
      const message = stream ? await vertex.messages.stream({ model, ...ask(n) }).finalMessage() : await vertex.messages.create({ model, ...ask(n) });
      if (n === 2) expect(message.usage.cache_read_input_tokens).toBeGreaterThan(0);
    }
    expect(s.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(s.requests.map((r) => decodeURIComponent(r.path))).toEqual(
      [1, 2].map(() => `/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/${model}:${stream ? 'streamRawPredict' : 'rawPredict'}`),
    );
    expect(s.requests.map((r) => r.stream)).toEqual([stream, stream]);
    expect(s.requests[0]!.body).toMatchObject({ anthropic_version: expect.any(String) });
    expect(s.requests[0]!.body).not.toHaveProperty('model');
  });

  it('refuses a body without anthropic_version, and validates it as the Messages API does', async () => {
    const s = await server();
    const post = (path: string, body: object) =>
      fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const invoke = '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke';
    expect((await post(invoke, { max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(400);
    const noMessages = await post(invoke, { anthropic_version: 'bedrock-2023-05-31', max_tokens: 8 });
    expect(noMessages.status).toBe(400);
    expect(s.requests.map((r) => r.error?.message)).toEqual([expect.stringMatching(/^anthropic_version: /), expect.stringMatching(/messages/)]);
  });
});

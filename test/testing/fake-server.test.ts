import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { fromTrace, type ScriptEntry } from '../../src/testing/fake-server-script.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { parseTrace } from '../../src/trace/index.js';

const MODEL = 'claude-sonnet-4-6';
let server: FakeMessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: readonly ScriptEntry[] = []): Promise<{ server: FakeMessagesServer; client: Anthropic }> {
  server = await startFakeServer({ script });
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 }) };
}

const hello: MessageParam[] = [{ role: 'user', content: 'Hello' }];

describe('startFakeServer', () => {
  it('answers the real SDK with the scripted message and records the request', async () => {
    const { server, client } = await start([[{ type: 'text', text: 'Hi there!' }]]);
    const msg = await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello });
    expect(msg.id).toBe('msg_fake_1');
    expect(msg.type).toBe('message');
    expect(msg.role).toBe('assistant');
    expect(msg.model).toBe(MODEL);
    expect(msg.content).toEqual([{ type: 'text', text: 'Hi there!' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.diagnostics).toBeNull();
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
    expect(msg.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages', status: 200, stream: false });
    expect(server.requests[0]?.body).toEqual({ model: MODEL, max_tokens: 64, messages: hello });
    expect(server.requests[0]?.response).toEqual(msg);
    expect(server.requests[0]?.headers['anthropic-version']).toBeTypeOf('string');
    expect(server.remaining).toBe(0);
  });

  it('sets stop_reason tool_use and fills in tool_use ids when the scripted content calls a tool', async () => {
    const { client } = await start([
      [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', name: 'Read', input: { path: 'a.ts' } },
      ],
    ]);
    const msg = await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello });
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.content[1]).toEqual({ type: 'tool_use', id: 'toolu_fake_1', name: 'Read', input: { path: 'a.ts' }, caller: { type: 'direct' } });
  });

  it('plays a function entry with the request it answers', async () => {
    const { client } = await start([(req) => [{ type: 'text', text: `you sent ${req.messages.length} message(s)` }]]);
    const msg = await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello });
    expect(msg.content[0]).toMatchObject({ text: 'you sent 1 message(s)' });
  });

  it('answers 500 api_error once the script is exhausted, surfaced as InternalServerError', async () => {
    const { server, client } = await start([[{ type: 'text', text: 'only one' }]]);
    await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello });
    const err = await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as APIError).type).toBe('api_error');
    expect((err as APIError).apiMessage).toContain('script is exhausted after 1 response(s)');
    expect(server.requests[1]?.error).toMatchObject({ status: 500, type: 'api_error' });
  });

  it('answers a scripted API error with that status and type', async () => {
    const { client } = await start([{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }]);
    const err = await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as APIError).status).toBe(529);
    expect((err as APIError).type).toBe('overloaded_error');
  });

  it('answers 404 not_found_error in the API error shape for unknown routes', async () => {
    const { server } = await start();
    const res = await fetch(`${server.url}/v1/models`);
    expect(res.status).toBe(404);
    expect(res.headers.get('request-id')).toBe('req_fake_1');
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'Not found: GET /v1/models' },
      request_id: 'req_fake_1',
    });
  });

  it('counts tokens on /v1/messages/count_tokens with the same counting as usage', async () => {
    const { client } = await start([[{ type: 'text', text: 'ok' }]]);
    const system = 'You are a careful assistant.';
    const counted = await client.messages.countTokens({ model: MODEL, system, messages: hello });
    const msg = await client.messages.create({ model: MODEL, max_tokens: 64, system, messages: hello });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(counted.input_tokens).toBe(msg.usage.input_tokens);
  });

  it('pre-warms with max_tokens 0: empty content, stop_reason max_tokens, script untouched', async () => {
    const { server, client } = await start([[{ type: 'text', text: 'later' }]]);
    const msg = await client.messages.create({ model: MODEL, max_tokens: 0, messages: hello });
    expect(msg.content).toEqual([]);
    expect(msg.stop_reason).toBe('max_tokens');
    expect(msg.usage.output_tokens).toBe(0);
    expect(server.remaining).toBe(1);
  });

  it('builds a script from the assistant events of a trace', async () => {
    const events = [
      { type: 'envelope', instructions: ['be brief'], tools: [] },
      { type: 'user', at: '2026-01-01T00:00:00Z', content: 'list files' },
      { type: 'assistant', at: '2026-01-01T00:00:01Z', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Glob', input: { pattern: '*' } }] },
      { type: 'tool_results', at: '2026-01-01T00:00:02Z', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts' }] },
      { type: 'assistant', at: '2026-01-01T00:00:03Z', content: [{ type: 'text', text: 'a.ts' }] },
    ];
    const script = fromTrace(events);
    expect(script).toHaveLength(2);
    const { client } = await start(script);
    const first = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'list files' }] });
    expect(first.content[0]).toMatchObject({ type: 'tool_use', id: 'toolu_1' });
    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'a.ts' }]);
  });
});

describe('streaming', () => {
  const blocks: ScriptEntry = [
    { type: 'thinking', thinking: 'The user wants the file read.', signature: 'sig-123' },
    { type: 'text', text: 'Let me read that file for you.' },
    { type: 'tool_use', id: 'toolu_s1', name: 'Read', input: { path: 'src/main.ts', lines: [1, 20] } },
  ];

  it('emits the real event sequence for create({ stream: true })', async () => {
    const { server, client } = await start([blocks]);
    const stream = await client.messages.create({ model: MODEL, max_tokens: 64, messages: hello, stream: true });
    const types: string[] = [];
    let text = '';
    let json = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') json += event.delta.partial_json;
    }
    expect(types[0]).toBe('message_start');
    expect(types.at(-2)).toBe('message_delta');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.filter((t) => t === 'content_block_start')).toHaveLength(3);
    expect(types.filter((t) => t === 'content_block_stop')).toHaveLength(3);
    expect(types.filter((t) => t === 'content_block_delta').length).toBeGreaterThan(3);
    expect(text).toBe('Let me read that file for you.');
    expect(JSON.parse(json)).toEqual({ path: 'src/main.ts', lines: [1, 20] });
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('lets messages.stream().finalMessage() rebuild the same message a non-streamed call gets', async () => {
    const { server, client } = await start([blocks]);
    const final = await client.messages.stream({ model: MODEL, max_tokens: 64, messages: hello }).finalMessage();
    // The SDK adds its own `parsed_output` field; everything the server sent must come back.
    expect(final).toMatchObject(server.requests[0]?.response ?? {});
    expect(final.content).toEqual([
      { type: 'thinking', thinking: 'The user wants the file read.', signature: 'sig-123' },
      { type: 'text', text: 'Let me read that file for you.' },
      { type: 'tool_use', id: 'toolu_s1', name: 'Read', input: { path: 'src/main.ts', lines: [1, 20] }, caller: { type: 'direct' } },
    ]);
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage.output_tokens).toBeGreaterThan(1);
  });

  it('answers an invalid streamed request with a plain 400 before any event', async () => {
    const { client } = await start([blocks]);
    const err = await client.messages
      .create({ model: MODEL, max_tokens: 64, messages: [{ role: 'assistant', content: 'hi' }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe('fromTrace', () => {
  it('plays back the assistant events of a trace read by the trace reader, markers dropped', async () => {
    const lines = [
      { type: 'envelope', instructions: ['Be brief.'], tools: [{ name: 'Glob', description: 'find files', input_schema: { type: 'object' } }] },
      { type: 'user', at: '2026-01-01T00:00:00Z', content: 'list files' },
      { type: 'assistant', at: '2026-01-01T00:00:01Z', content: [{ type: 'tool_use', id: 'toolu_9', name: 'Glob', input: { pattern: '*' } }] },
      { type: 'tool_results', at: '2026-01-01T00:00:02Z', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'a.ts', duration_ms: 4 }] },
      { type: 'assistant', at: '2026-01-01T00:00:03Z', content: [{ type: 'text', text: 'a.ts', cache_control: { type: 'ephemeral' } }] },
    ];
    const script = fromTrace(parseTrace(lines.map((l) => JSON.stringify(l)).join('\n')));
    expect(script).toEqual([[{ type: 'tool_use', id: 'toolu_9', name: 'Glob', input: { pattern: '*' } }], [{ type: 'text', text: 'a.ts' }]]);
  });
});

describe('concurrency', () => {
  it('gives concurrent requests distinct request and message ids and plays each entry once', async () => {
    const { server, client } = await start(Array.from({ length: 5 }, (_, i) => [{ type: 'text' as const, text: `answer ${i}` }]));
    const msgs = await Promise.all(Array.from({ length: 5 }, () => client.messages.create({ model: MODEL, max_tokens: 16, messages: hello })));
    expect(new Set(msgs.map((m) => m.id)).size).toBe(5);
    expect(new Set(msgs.map((m) => (m.content[0] as { text: string }).text)).size).toBe(5);
    expect(new Set(server.requests.map((r) => r.requestId)).size).toBe(5);
    expect(server.remaining).toBe(0);
  });
});

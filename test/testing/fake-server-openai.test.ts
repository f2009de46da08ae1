/**
 * The real `openai` SDK and the real AWS SDK against the fake server's OpenAI
 * and Converse routes: multi-turn tool loops rendered by cachepoint, with
 * cache usage reported on every request after the first.
 */
import { ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { bedrockProfile, fromConverseOutput, toBedrockConverse } from '../../src/providers/bedrock.js';
import { fromOpenAIChatCompletion, fromOpenAIResponse, toOpenAIChat, toOpenAIResponses } from '../../src/providers/openai.js';
import { OPENAI_MODELS } from '../../src/providers/openai-profile.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { bedrockClient } from '../helpers/bedrock.js';
import { newSession, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** 3 turns × 4 rounds: three Read calls then an answer, per turn. */
function script(): ({ type: 'tool_use'; name: string; input: unknown } | { type: 'text'; text: string })[][] {
  const out: ({ type: 'tool_use'; name: string; input: unknown } | { type: 'text'; text: string })[][] = [];
  for (let t = 0; t < 3; t++) {
    for (let r = 0; r < 3; r++) out.push([{ type: 'tool_use', name: 'Read', input: { path: `src/t${t}-r${r}.ts` } }]);
    out.push([{ type: 'text', text: `Turn ${t + 1} done.` }]);
  }
  return out;
}

/** Runs the loop: render → send → record → answer tools, with a clock stepping 5 s per request. */
async function loop(
  model: string,
  send: (r: Rendered) => Promise<{ blocks: ContentBlockParam[]; read: number; write: number }>,
  profile = OPENAI_MODELS[model]!,
): Promise<{ reads: number[]; writes: number[] }> {
  let state: TimelineState = newSession(model);
  const reads: number[] = [];
  const writes: number[] = [];
  let now = 0;
  for (let t = 0; t < 3; t++) {
    state = startTurn(state, `Task ${t + 1}: read the files and report.`);
    for (;;) {
      const r = render(state, { profile, now });
      now += 5_000;
      const out = await send(r);
      reads.push(out.read);
      writes.push(out.write);
      state = appendResponse(r.state, out.blocks);
      const calls = out.blocks.filter((b) => b.type === 'tool_use') as { id: string }[];
      if (calls.length === 0) break;
      state = appendToolResults(
        state,
        calls.map((c) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: text(c.id, 900) })),
      );
    }
  }
  return { reads, writes };
}

describe('the openai SDK against the fake server', () => {
  it('Responses API, automatic caching (gpt-5.4): cached tokens on every request after the first, no writes billed', async () => {
    let clock = 0;
    server = await startFakeServer({ script: script(), now: () => (clock += 5_000) });
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const { reads, writes } = await loop('gpt-5.4', async (r) => {
      const res = await client.responses.create(toOpenAIResponses(r, { promptCacheKey: 'conv-1', request: { max_output_tokens: 512 } }));
      const d = res.usage!.input_tokens_details;
      return { blocks: fromOpenAIResponse(res) as ContentBlockParam[], read: d.cached_tokens, write: d.cache_write_tokens };
    });
    expect(reads).toHaveLength(12);
    expect(reads[0]).toBe(0);
    for (const n of reads.slice(1)) expect(n).toBeGreaterThan(0);
    expect(writes.every((w) => w === 0)).toBe(true);
    expect(server.requests.every((q) => q.status === 200)).toBe(true);
  });

  it('Chat Completions with GPT-5.6 markers: writes then reads, at most four markers a request', async () => {
    let clock = 0;
    server = await startFakeServer({ script: script(), now: () => (clock += 5_000) });
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const { reads, writes } = await loop('gpt-5.6-terra', async (r) => {
      const c = await client.chat.completions.create(toOpenAIChat(r, { promptCacheKey: 'conv-2' }));
      const d = c.usage!.prompt_tokens_details!;
      return { blocks: fromOpenAIChatCompletion(c) as ContentBlockParam[], read: d.cached_tokens ?? 0, write: d.cache_write_tokens ?? 0 };
    });
    expect(writes[0]).toBeGreaterThan(0);
    for (const n of reads.slice(1)) expect(n).toBeGreaterThan(0);
    for (const q of server.requests) expect((JSON.stringify(q.body).match(/prompt_cache_breakpoint/g) ?? []).length).toBeLessThanOrEqual(4);
  });

  it('streams Responses events and Chat chunks with usage at the end', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'Hello there.' }], [{ type: 'tool_use', name: 'Read', input: { path: 'a.ts' } }]] });
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    const r = render(startTurn(newSession('gpt-5.4'), 'Hi'), { profile: OPENAI_MODELS['gpt-5.4']!, now: 0 });
    const stream = await client.responses.create({ ...toOpenAIResponses(r), stream: true });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'response.completed') final = e.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(fromOpenAIResponse(final!)).toEqual([{ type: 'text', text: 'Hello there.' }]);
    const chunks = await client.chat.completions.create({ ...toOpenAIChat(r), stream: true, stream_options: { include_usage: true } });
    const calls: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of chunks) {
      for (const t of c.choices[0]?.delta.tool_calls ?? []) if (t.function?.name) calls.push(t.function.name);
      if (c.usage) usage = c.usage;
    }
    expect(calls).toEqual(['Read']);
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('answers an unanswered tool output and an unknown model the way OpenAI does', async () => {
    server = await startFakeServer({ script: [] });
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
    await expect(
      client.responses.create({ model: 'gpt-5.4', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'hi' }] }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('No tool call found for function call output with call_id call_x') });
    await expect(client.chat.completions.create({ model: 'gpt-nope', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });
});

describe('the AWS SDK against the fake Converse route', () => {
  it('runs a Converse tool loop on Claude with cache points: reads after the first request', async () => {
    let clock = 0;
    server = await startFakeServer({ script: script(), now: () => (clock += 5_000) });
    const client = bedrockClient(server.url);
    const id = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const { reads, writes } = await loop(
      id,
      async (r) => {
        const out = await client.send(new ConverseCommand(toBedrockConverse(r, { inferenceConfig: { maxTokens: 512 } })));
        return {
          blocks: fromConverseOutput(out) as unknown as ContentBlockParam[],
          read: out.usage?.cacheReadInputTokens ?? 0,
          write: out.usage?.cacheWriteInputTokens ?? 0,
        };
      },
      bedrockProfile(id),
    );
    expect(writes[0]).toBeGreaterThan(0);
    for (const n of reads.slice(1)) expect(n).toBeGreaterThan(0);
    expect(server.requests.every((q) => q.status === 200 && q.path.startsWith('/model/'))).toBe(true);
  });

  it('refuses five cache points with a ValidationException', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'ok' }]] });
    const client = bedrockClient(server.url);
    const point = { cachePoint: { type: 'default' as const } };
    const big = 'word '.repeat(800);
    const send = client.send(
      new ConverseCommand({
        modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        system: [{ text: big }, point, { text: big }, point, { text: big }, point],
        messages: [{ role: 'user', content: [{ text: big }, point, { text: 'hi' }, point] }],
      }),
    );
    await expect(send).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('refuses a document Bedrock refuses (a name with characters it does not take, no source, an unknown format), naming where', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'ok' }]] });
    const client = bedrockClient(server.url);
    const send = (document: object) =>
      client.send(
        new ConverseCommand({
          modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
          messages: [{ role: 'user', content: [{ text: 'Read it.' }, { document } as never] }],
        }),
      );
    const bytes = { bytes: new TextEncoder().encode('a,b') };
    await expect(send({ format: 'csv', name: 'rows.csv', source: bytes })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/^messages\.0\.content\.1\.document\.name: /),
    });
    await expect(send({ format: 'csv', name: 'two  spaces', source: bytes })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(send({ format: 'csv', name: 'rows', source: {} })).rejects.toMatchObject({
      message: expect.stringMatching(/^messages\.0\.content\.1\.document\.source: /),
    });
    await expect(send({ format: 'rtf', name: 'rows', source: bytes })).rejects.toMatchObject({
      message: expect.stringMatching(/^messages\.0\.content\.1\.document\.format: /),
    });
    // Inside a tool result too; and a valid one is answered.
    const toolUse = { toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: {} } };
    const inResult = client.send(
      new ConverseCommand({
        modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        messages: [
          { role: 'user', content: [{ text: 'Read it.' }] },
          { role: 'assistant', content: [toolUse] },
          {
            role: 'user',
            content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ document: { format: 'csv', name: 'a.b', source: bytes } } as never] } }],
          },
        ],
        toolConfig: { tools: [{ toolSpec: { name: 'Read', inputSchema: { json: { type: 'object' } } } }] },
      }),
    );
    await expect(inResult).rejects.toMatchObject({ message: expect.stringMatching(/^messages\.2\.content\.0\.toolResult\.content\.0\.document\.name: /) });
    await send({ format: 'csv', name: 'Rows (2026) [final]-v2', source: bytes });
    expect(server.requests.at(-1)!.status).toBe(200);
  });
});

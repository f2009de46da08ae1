import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { serializeWithOffsets, toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { extractiveSummarizer } from '../../src/summarize/extractive.js';
import { priceUsage } from '../../src/models/pricing.js';
import { llmSummarizer } from '../../src/summarize/llm.js';
import type { SummaryInput } from '../../src/summarize/types.js';
import { cutToWarmPrefix } from '../../src/summarize/warm-prefix.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import { workSession } from './turns.js';

const MODEL = 'claude-sonnet-4-6';
const SUMMARY = 'Turns 1–3: fixed the retry backoff (src/b.ts, 250 → 500 ms); tests pass.';

let server: FakeMessagesServer | undefined;
let hanging: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (hanging) {
    hanging.closeAllConnections();
    await new Promise((r) => hanging!.close(r));
    hanging = undefined;
  }
});

async function start(script: readonly ScriptEntry[]) {
  server = await startFakeServer({ script });
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }) };
}

/** A 4-turn session waiting on turn 5's first request, and the params of that request. */
function sessionRequest(): { input: SummaryInput; params: MessageCreateParamsNonStreaming } {
  const state = setTail(startTurn(workSession(4), 'Request 5: now add a jitter to the backoff.'), 'Live view: budget 41% used.');
  const params = toAnthropic(render(state), { max_tokens: 4096 });
  return { params, input: { fromTurn: 1, toTurn: 3, turns: state.turns.slice(0, 3), maxTokens: 600 } };
}

const body = (i: number): MessageCreateParamsNonStreaming => server!.requests[i]!.body as MessageCreateParamsNonStreaming;
const withoutMaxTokens = (p: MessageCreateParamsNonStreaming) => ({ ...p, max_tokens: 0 });

describe('llmSummarizer (warm prefix)', () => {
  it('sends the warm prefix byte-identical plus the instruction, and reads the history from the cache', async () => {
    const { server, client } = await start([[{ type: 'text', text: 'working on it' }], [{ type: 'text', text: SUMMARY }]]);
    const { input, params } = sessionRequest();
    await client.messages.create(params); // the session's own request writes the cache
    const warmPrefix = cutToWarmPrefix(params)!;
    const out = await llmSummarizer({ client }).summarize({ ...input, warmPrefix });

    expect(out).toMatchObject({ text: SUMMARY, by: `llm:${MODEL}`, mode: 'warm' });
    expect(out.fallback).toBeUndefined();
    const sent = body(1);
    // Byte for byte: the prefix's serialization up to its last block is the start of what was sent.
    const prefix = serializeWithOffsets(withoutMaxTokens(warmPrefix));
    const request = serializeWithOffsets(withoutMaxTokens(sent));
    expect(request.json.slice(0, prefix.ends.at(-1))).toBe(prefix.json.slice(0, prefix.ends.at(-1)));
    // …followed by exactly one block: the instruction, in the same (last, user) message.
    expect(request.ends).toHaveLength(prefix.ends.length + 1);
    expect(sent.messages).toHaveLength(warmPrefix.messages.length);
    const instruction = (sent.messages.at(-1)!.content as TextBlockParam[]).at(-1)!;
    expect(instruction.type).toBe('text');
    expect(instruction.text).toMatch(/^Summarize turns 1 \(it begins "Request 1: the retry test/);
    expect(instruction.text).toContain('under 600 tokens');
    expect(sent.max_tokens).toBe(600);

    // The history was a cache read: only the instruction was paid at the full input price.
    const reported = server.requests[1]!.response as { usage: { input_tokens: number; cache_read_input_tokens: number } };
    expect(out.usage).toMatchObject({ input_tokens: reported.usage.input_tokens, cache_read_input_tokens: reported.usage.cache_read_input_tokens });
    expect(out.usage!.cache_read_input_tokens).toBeGreaterThan(1_000);
    expect(out.usage!.input_tokens).toBeLessThan(300);
    const price = priceUsage(resolveProfile(MODEL).prices, (server.requests[1]!.response as Message).usage);
    expect(out.cost).toBeCloseTo(price.total + price.output, 12);
  });

  it('adds the instruction as a new user message when the prefix ends with the assistant', async () => {
    const { client } = await start([[{ type: 'text', text: SUMMARY }]]);
    const { input, params } = sessionRequest();
    // Cut after the previous turn's final answer (an assistant block) and mark it there.
    const upToAnswer = params.messages.findLastIndex((m) => m.role === 'assistant');
    const assistant = params.messages[upToAnswer]!;
    const blocks = assistant.content as TextBlockParam[];
    const marked = { ...assistant, content: [...blocks.slice(0, -1), { ...blocks.at(-1)!, cache_control: { type: 'ephemeral' as const } }] };
    const warmPrefix = { ...params, messages: [...params.messages.slice(0, upToAnswer), marked] } as MessageCreateParamsNonStreaming;
    const out = await llmSummarizer({ client }).summarize({ ...input, warmPrefix });
    expect(out.mode).toBe('warm');
    const sent = body(0);
    expect(sent.messages).toHaveLength(warmPrefix.messages.length + 1);
    expect(JSON.stringify(sent.messages.slice(0, -1))).toBe(JSON.stringify(warmPrefix.messages));
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text' }] });
  });

  it('keeps thinking as it was and gives the summary room on top of its budget', async () => {
    const { client } = await start([[{ type: 'text', text: SUMMARY }]]);
    const { input, params } = sessionRequest();
    const warmPrefix = { ...cutToWarmPrefix(params)!, thinking: { type: 'enabled' as const, budget_tokens: 2048 } };
    await llmSummarizer({ client }).summarize({ ...input, warmPrefix });
    expect(body(0).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body(0).max_tokens).toBe(2048 + 600);
  });

  it('uses a transcript when the prefix does not reach the turns to summarize', async () => {
    const { client } = await start([[{ type: 'text', text: SUMMARY }]]);
    const { input, params } = sessionRequest();
    const shortPrefix = { ...params, messages: params.messages.slice(0, 1) };
    const out = await llmSummarizer({ client }).summarize({ ...input, warmPrefix: shortPrefix });
    expect(out.mode).toBe('transcript');
  });
});

describe('llmSummarizer (transcript)', () => {
  it('sends a compact transcript of the turns, with the previous summary for context', async () => {
    const { client } = await start([[{ type: 'text', text: SUMMARY }]]);
    const { input } = sessionRequest();
    const previous = { path: 'summaries/0', fromTurn: 1, toTurn: 1, text: 'Turn 1: looked at retries.', paths: [], by: 'extractive' };
    const out = await llmSummarizer({ client, model: 'claude-haiku-4-5' }).summarize({ ...input, fromTurn: 2, turns: input.turns.slice(1), previous });
    expect(out).toMatchObject({ text: SUMMARY, by: 'llm:claude-haiku-4-5', mode: 'transcript' });
    const sent = body(0);
    expect(sent.model).toBe('claude-haiku-4-5');
    const text = (sent.messages[0]!.content as TextBlockParam[])[0]!.text;
    expect(text).toContain('<earlier-summary turns="1-1">\nTurn 1: looked at retries.');
    expect(text).toContain('<turn n="2">');
    expect(text).toContain('CALL Read {"path":"src/a.ts","offset":0} [turns/2/rounds/1/calls/');
    expect(text).toContain('RESULT (error) [turns/2/rounds/4/results/');
    expect(text).not.toContain('<turn n="1">');
    expect(text).not.toContain('Reading more.'); // thinking stays out
    expect(out.cost).toBeGreaterThan(0);
  });
});

describe('llmSummarizer (fallback)', () => {
  it('falls back to the extractive summary on an API error, without throwing', async () => {
    const { client } = await start([{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }]);
    const { input, params } = sessionRequest();
    const out = await llmSummarizer({ client }).summarize({ ...input, warmPrefix: cutToWarmPrefix(params)! });
    expect(out.fallback).toBe('error 529: Overloaded');
    expect(out.by).toBe('extractive');
    expect(out.text).toBe(extractiveSummarizer().summarize(input).text);
    expect(out.usage).toBeUndefined();
  });

  it('falls back when the model answers without text, and still reports what that call cost', async () => {
    const { client } = await start([[{ type: 'tool_use', name: 'Read', input: { path: 'src/a.ts' } }]]);
    const { input, params } = sessionRequest();
    const out = await llmSummarizer({ client }).summarize({ ...input, warmPrefix: cutToWarmPrefix(params)! });
    expect(out.fallback).toBe('empty answer (stop_reason tool_use)');
    expect(out.by).toBe('extractive');
    expect(out.usage?.output_tokens).toBeGreaterThan(0);
    expect(out.cost).toBeGreaterThan(0);
  });

  it('falls back after the timeout when the server never answers', async () => {
    hanging = createServer(() => {
      // Accept the request and never answer.
    });
    await new Promise<void>((r) => hanging!.listen(0, '127.0.0.1', r));
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, apiKey: 'test', maxRetries: 0 });
    const { input } = sessionRequest();
    const out = await llmSummarizer({ client, timeoutMs: 150 }).summarize(input);
    expect(out.fallback).toBe('timeout after 150 ms');
    expect(out.text).toBe(extractiveSummarizer().summarize(input).text);
  });

  it('falls back when the caller aborts', async () => {
    hanging = createServer(() => {});
    await new Promise<void>((r) => hanging!.listen(0, '127.0.0.1', r));
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, apiKey: 'test', maxRetries: 0 });
    const controller = new AbortController();
    const pending = llmSummarizer({ client }).summarize(sessionRequest().input, controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect((await pending).fallback).toBe('aborted by the caller');
  });

  it('uses the given fallback summarizer', async () => {
    const { client } = await start([{ error: { status: 500, type: 'api_error', message: 'boom' } }]);
    const fallback = { name: 'fixed', summarize: async () => ({ text: 'fixed summary', by: 'fixed' }) };
    const out = await llmSummarizer({ client, fallback }).summarize(sessionRequest().input);
    expect(out).toMatchObject({ text: 'fixed summary', by: 'fixed', fallback: 'error 500: boom', mode: 'transcript' });
  });
});

describe('cutToWarmPrefix', () => {
  it('cuts after the last marked message block and keeps the markers', () => {
    const { params } = sessionRequest();
    const prefix = cutToWarmPrefix(params)!;
    const lastBlock = (prefix.messages.at(-1)!.content as { cache_control?: unknown }[]).at(-1)!;
    expect(lastBlock.cache_control).toEqual({ type: 'ephemeral' });
    expect(prefix.tools).toBe(params.tools);
    expect(prefix.system).toBe(params.system);
    // The cut dropped the unmarked tail after ④ and nothing else.
    expect(JSON.stringify(params.messages)).toContain('Live view');
    expect(JSON.stringify(prefix.messages)).not.toContain('Live view');
    expect(JSON.stringify(prefix.messages)).toContain('Request 5');
  });

  it('cuts inside a message when the marker is not on its last block', () => {
    const params: MessageCreateParamsNonStreaming = {
      model: MODEL,
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    };
    expect(cutToWarmPrefix(params)!.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }] }]);
  });

  it('returns undefined when no message block is marked', () => {
    expect(cutToWarmPrefix({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).toBeUndefined();
  });
});

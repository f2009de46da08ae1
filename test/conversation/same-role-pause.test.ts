/**
 * Two valid requests `prepare` used to refuse (review12 and fuzz12, items 1 and 2), against the fake Messages API
 * with the real SDK:
 * - consecutive assistant messages (a loop that writes a response's text and its tool_use as two messages): the API
 *   combines consecutive same-role turns into one, and so does prepare, before mapping. What goes out is the merged
 *   form, byte-identical to the loop that writes one message per response and to a Session's request;
 * - a `pause_turn` continuation (the paused response sent back as is, as the last message): sent last, after the
 *   tail, like a prefill; the rest of the turn then merges into it as a plain append.
 * Over several requests the fake server accepts every request, nothing resyncs, and the cache reads keep growing.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { type PrepareParams, prepare, recordUsage } from '../../src/conversation/prepare.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { BASE } from './store-contract.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODEL = 'claude-sonnet-4-5';
const base = { ...BASE, model: MODEL };

describe('consecutive assistant messages', () => {
  it('are merged as the API merges them: the same bytes as one message per response and as a Session; the cache carries over', async () => {
    const read = (n: number) => ({
      content: [
        { type: 'text' as const, text: `Reading ${n}.` },
        { type: 'tool_use' as const, id: `toolu_${n}`, name: 'Read', input: { path: `f${n}` } },
      ],
    });
    server = await startFakeServer({ script: [read(1), read(2), read(3), read(4), [{ type: 'text', text: 'Done.' }]], now: () => 5_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const split: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files.' }];
    const whole: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files.' }];
    const session = new Session({ model: MODEL, instructions: [BASE.system], tools: BASE.tools, request: { max_tokens: 1024 }, now: () => 5_000 });
    session.startTurn('Read the files.');
    const a = { conversationId: 'split', store: new MemoryConversationStore(), now: 5_000 };
    const b = { conversationId: 'whole', store: new MemoryConversationStore(), now: 5_000 };
    const reads: number[] = [];
    for (let i = 0; i < 5; i++) {
      const one = await prepare({ ...base, messages: split }, a);
      const two = await prepare({ ...base, messages: whole }, b);
      expect(one.plan.resync).toBeUndefined();
      expect(JSON.stringify(one.params)).toBe(JSON.stringify(two.params));
      expect(JSON.stringify(one.params)).toBe(JSON.stringify(await session.request()));
      const message = await client.messages.create(one.params);
      await recordUsage(message, a);
      session.recordResponse(message);
      reads.push(message.usage.cache_read_input_tokens ?? 0);
      if (message.stop_reason !== 'tool_use') break;
      // The loop writes the response's text and its tool_use as two messages.
      const text = message.content.filter((x) => x.type === 'text');
      const uses = message.content.filter((x) => x.type === 'tool_use');
      split.push({ role: 'assistant', content: (text[0] as Anthropic.TextBlock).text }, { role: 'assistant', content: uses });
      whole.push({ role: 'assistant', content: message.content });
      const results = uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: `contents of ${u.id}` }));
      split.push({ role: 'user', content: results });
      whole.push({ role: 'user', content: results });
      session.recordToolResults(results);
    }
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    expect(reads).toHaveLength(5);
    // From the second request on, each reads at least what the previous one read: no bust after the merged shape.
    for (let i = 1; i < reads.length; i++) expect(reads[i]).toBeGreaterThan(reads[i - 1]!);
  });
});

describe('a pause_turn continuation', () => {
  it('is sent back as the last message (after the tail); the turn then goes on; the cache carries over', async () => {
    const srvUse = { type: 'server_tool_use', id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE', name: 'web_search', input: { query: 'weather' } };
    const srvResult = {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
      content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Weather', encrypted_content: 'EqgfCioIARgB', page_age: null }],
    };
    server = await startFakeServer({
      script: [
        { content: [srvUse as never], stop_reason: 'pause_turn' },
        [srvResult as never, { type: 'text', text: 'It is sunny.' }],
        [{ type: 'text', text: 'Sunny tomorrow too.' }],
        [{ type: 'text', text: 'You are welcome.' }],
      ],
      now: () => 5_000,
    });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    // A model that takes a trailing assistant message (the fake server refuses one on Claude 4.6 and later, as a
    // prefill; whether the API makes an exception for a paused turn there, no source says: see docs/drop-in.md).
    const params = { ...base, tools: [...BASE.tools, { type: 'web_search_20250305', name: 'web_search' }] };
    const ref = { conversationId: 'pause', store: new MemoryConversationStore(), now: 5_000 };
    const session = new Session({ model: MODEL, instructions: [BASE.system], tools: params.tools as never, request: { max_tokens: 1024 }, now: () => 5_000 });
    // Each user message is big enough to be worth a cache entry of its own.
    const notes = (what: string) => `${what}\n${'Notes on the weather. '.repeat(300)}`;
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: notes('What is the weather?') }];
    const reads: number[] = [];
    const next = [notes('And tomorrow?'), notes('Thanks.')];
    session.startTurn(notes('What is the weather?'));
    for (let i = 0; i < 4; i++) {
      const tail = `live view ${i}`;
      const { params: out, plan } = await prepare({ ...params, messages } as never, { ...ref, tail });
      expect(plan.resync).toBeUndefined();
      // The Session door holds the paused content and sends it back the same way: the same bytes.
      session.setTail(tail);
      expect(JSON.stringify(out)).toBe(JSON.stringify(await session.request()));
      if (i === 1) {
        // The paused response goes back as is, last, after the tail (in the last user message).
        expect(out.messages.at(-1)).toEqual({ role: 'assistant', content: [srvUse] });
        expect(JSON.stringify(out.messages.at(-2))).toContain(tail);
        expect(plan.prefillTokens).toBeGreaterThan(0);
      }
      const message = await client.messages.create(out as never);
      await recordUsage(message, ref);
      session.recordResponse(message);
      reads.push(message.usage.cache_read_input_tokens ?? 0);
      // The loop appends every response as it came (the continuation: a second assistant message).
      messages.push({ role: 'assistant', content: message.content });
      if (message.stop_reason !== 'pause_turn') {
        const text = next.shift() ?? 'Bye.';
        messages.push({ role: 'user', content: text });
        session.startTurn(text);
      }
    }
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // The continuation reads what the paused request wrote; the next request reads as much (the paused content was
    // not kept, so it is written there with the rest of the turn), and the one after reads more: no bust.
    expect(reads[1]).toBeGreaterThan(0);
    expect(reads[2]).toBeGreaterThanOrEqual(reads[1]!);
    expect(reads[3]).toBeGreaterThan(reads[2]!);
  });
});

describe('a pause_turn response not continued', () => {
  it('is history when the next turn starts: the same bytes through prepare and a Session', async () => {
    const srvUse = { type: 'server_tool_use', id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE', name: 'web_search', input: { query: 'weather' } };
    const tools = [...BASE.tools, { type: 'web_search_20250305', name: 'web_search' }];
    const session = new Session({ model: MODEL, instructions: [BASE.system], tools: tools as never, request: { max_tokens: 1024 }, now: () => 5_000 });
    session.startTurn('What is the weather?');
    await session.request();
    session.recordResponse({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [srvUse],
      stop_reason: 'pause_turn',
      usage: { input_tokens: 10, output_tokens: 5 },
    } as never);
    session.startTurn('Never mind.');
    const messages = [
      { role: 'user', content: 'What is the weather?' },
      { role: 'assistant', content: [srvUse] },
      { role: 'user', content: 'Never mind.' },
    ];
    const { params } = await prepare({ ...base, tools, messages } as PrepareParams, { conversationId: 'p', store: new MemoryConversationStore(), now: 5_000 });
    expect(JSON.stringify(await session.request())).toBe(JSON.stringify(params));
    expect(params.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });
});

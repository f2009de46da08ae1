/**
 * Streaming for real: SDK events and text deltas reach the caller as they
 * arrive, the final message is recorded exactly as step() records it, and an
 * AbortSignal cancels without recording anything.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import type { MessagesClient, StreamEventLike } from '../../src/session/client.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const script = (): ScriptEntry[] => [
  [
    { type: 'text', text: 'Let me read the file that holds the failing test first.' },
    { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'src/math.test.ts' } },
  ],
  [{ type: 'text', text: 'The test expected 4 but add() returned 5: fixed the off-by-one in add().' }],
];

function session(): Session {
  return new Session({
    model: 'claude-sonnet-4-6',
    instructions: INSTRUCTIONS,
    tools: TOOLS,
    handlers: { Read: (() => 'export const add = (a, b) => a + b + 1;') as never },
    now: () => 1_000,
  });
}

describe('Session streaming', () => {
  it('delivers events and text deltas as they arrive and records the same state as step() without streaming', async () => {
    server = await startFakeServer({ script: [...script(), ...script()], now: () => 1_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const streamed = session().startTurn('The test fails. Fix it.');
    const plain = session().startTurn('The test fails. Fix it.');
    const texts: string[] = [];
    const events: string[] = [];
    for (;;) {
      const message = await streamed.step(client, { max_tokens: 512 }, { stream: true, onText: (t) => texts.push(t), onEvent: (e) => events.push(e.type) });
      if (message.stop_reason !== 'tool_use') break;
    }
    for (;;) {
      const message = await plain.step(client, { max_tokens: 512 });
      if (message.stop_reason !== 'tool_use') break;
    }
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events.filter((e) => e === 'content_block_delta').length).toBeGreaterThan(4);
    expect(texts.join('')).toBe(
      script()
        .flatMap((m) => (m as { type: string; text?: string }[]).filter((b) => b.type === 'text').map((b) => b.text))
        .join(''),
    );
    expect(texts.length).toBeGreaterThan(2); // several deltas, not one final blob
    expect(JSON.stringify(streamed.state.turns)).toBe(JSON.stringify(plain.state.turns));
    expect(streamed.stats().totals.requests).toBe(2);
  });

  it('session.stream(): iterate text deltas, then finalMessage() is recorded and its tools run', async () => {
    server = await startFakeServer({ script: script(), now: () => 1_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const s = session().startTurn('The test fails. Fix it.');
    const run = s.stream(client, { max_tokens: 512 });
    let text = '';
    for await (const t of run.textDeltas()) text += t;
    const message = await run.finalMessage();
    expect(text).toBe('Let me read the file that holds the failing test first.');
    expect(message.stop_reason).toBe('tool_use');
    const round = s.state.turns[0]!.rounds[0]!;
    expect(round.open).toEqual([]); // its tool ran
    expect(round.results[0]!.param).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
  });

  it('each event reaches the caller before the next one exists (a gated client)', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const final = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'Hello world' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 2 },
    };
    const client: MessagesClient = {
      messages: {
        create: async () => final,
        stream: () => ({
          async *[Symbol.asyncIterator]() {
            log.push('server: first');
            yield { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } };
            await gate; // the rest does not exist until the caller saw the first delta
            log.push('server: second');
            yield { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' world' } };
          },
          finalMessage: async () => final,
        }),
      },
    };
    const s = session().startTurn('hi');
    const done = s.step(
      client,
      {},
      {
        stream: true,
        onText: (t) => {
          log.push(`caller: ${t}`);
          release();
        },
      },
    );
    await done;
    expect(log).toEqual(['server: first', 'caller: Hello', 'server: second', 'caller:  world']);
  });

  it('an AbortSignal cancels the stream and records nothing; the next step works', async () => {
    server = await startFakeServer({ script: script(), now: () => 1_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const s = session().startTurn('The test fails. Fix it.');
    const controller = new AbortController();
    const seen: StreamEventLike[] = [];
    const aborted = s.step(
      client,
      { max_tokens: 512 },
      {
        stream: true,
        signal: controller.signal,
        onEvent: (e) => {
          seen.push(e);
          if (e.type === 'content_block_delta') controller.abort();
        },
      },
    );
    await expect(aborted).rejects.toThrow(/abort/i);
    expect(seen.some((e) => e.type === 'content_block_delta')).toBe(true);
    expect(s.state.turns[0]!.rounds).toHaveLength(0);
    expect(s.stats().totals.requests).toBe(0);
    // A signal aborted before the call: nothing is sent.
    const before = server.requests.length;
    await expect(s.step(client, { max_tokens: 512 }, { stream: true, signal: AbortSignal.abort() })).rejects.toThrow();
    expect(server.requests.length).toBe(before);
  });

  it('abort() right after stream(), before the request went out, cancels it: nothing is sent or recorded', async () => {
    // Found by review8: abort() called while the render was still pending was a no-op (no SDK stream yet), so the
    // request went out anyway and finalMessage() recorded its answer.
    server = await startFakeServer({ script: script(), now: () => 1_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const s = session().startTurn('The test fails. Fix it.');
    const run = s.stream(client, { max_tokens: 512 });
    run.abort();
    await expect(run.finalMessage()).rejects.toThrow(/abort/i);
    expect(server.requests.length).toBe(0);
    expect(s.state.turns[0]!.rounds).toHaveLength(0);
    expect(s.stats().totals.requests).toBe(0);
    // The next step works.
    const message = await s.step(client, { max_tokens: 512 }, { stream: true });
    expect(message.stop_reason).toBe('tool_use');
    expect(server.requests.length).toBe(1);
  });
  it('abort() or an aborted signal with the stream never awaited leaves no unhandled rejection (it crashed Node)', async () => {
    // Found by review11: the render's promise rejected with the AbortError and nobody held it when the caller
    // cancelled and moved on without finalMessage(), so Node's default --unhandled-rejections=throw ended the process.
    server = await startFakeServer({ script: script(), now: () => 1_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const s = session().startTurn('The test fails. Fix it.');
      s.stream(client, { max_tokens: 512 }).abort();
      s.stream(client, { max_tokens: 512 }, { signal: AbortSignal.abort() });
      // A whole step later, Node has reported any rejection left unhandled by the two above.
      const message = await s.step(client, { max_tokens: 512 }, { stream: true });
      expect(message.stop_reason).toBe('tool_use');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(server.requests.length).toBe(1);
      expect(s.stats().totals.requests).toBe(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

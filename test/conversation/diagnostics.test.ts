/**
 * Why it missed, from the API itself: opt-in cache diagnostics recorded next to
 * the plan's predicted cause (Session and prepare), disagreements counted; and
 * a prefix below the model's minimum said in plain words.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { conversationStats, prepare, recordUsage } from '../../src/conversation/prepare.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { BASE, requests } from './store-contract.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const toolRounds = (n: number): ScriptEntry[] =>
  Array.from({ length: n }, (_, i) => [{ type: 'tool_use', id: `toolu_${i + 1}`, name: 'Read', input: { path: `src/${i}.ts` } }]);

describe('API cache diagnostics (opt-in)', () => {
  it('prepare asks for them, records the API reason next to the prediction, and they agree on a clean loop', async () => {
    server = await startFakeServer({ script: [...toolRounds(4), [{ type: 'text', text: 'done' }]], now: () => 5_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const ref = { conversationId: 'diag', store, now: 5_000 };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read everything.' }];
    let system = BASE.system;
    for (let i = 0; i < 5; i++) {
      if (i === 3) system = `${system} Answer in English.`; // a real change the API will name
      const { params } = await prepare({ ...BASE, system, messages }, { ...ref, diagnostics: true, tail: `live view ${i}` });
      expect((params as { diagnostics?: unknown }).diagnostics).toEqual({ previous_message_id: i === 0 ? null : expect.any(String) });
      const message = await client.messages.create(params);
      await recordUsage(message, ref);
      messages.push({ role: 'assistant', content: message.content });
      if (message.stop_reason !== 'tool_use') break;
      const use = message.content.find((b) => b.type === 'tool_use')!;
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'file content' }] });
    }
    const stats = (await conversationStats(ref))!;
    const d = stats.requests.map((r) => r.diagnostics);
    expect(d[0]).toMatchObject({ comparable: false }); // first request: nothing to compare with
    // The tail of the previous request is replaced every time: the API sees messages change, as predicted.
    expect(d[1]).toMatchObject({ api: 'messages_changed', predicted: 'messages_changed', disagree: false });
    expect(d[3]).toMatchObject({ api: 'system_changed', predicted: 'system_changed', disagree: false });
    expect(stats.totals.diagnosed).toBe(4);
    expect(stats.totals.disagreements).toBe(0);
  });

  it('counts a disagreement when the API names a cause the plan did not predict', async () => {
    const store = new MemoryConversationStore();
    const ref = { conversationId: 'dis', store, now: 1 };
    const [first, second] = requests(1, 1);
    await prepare({ ...BASE, messages: first! }, { ...ref, diagnostics: true });
    await recordUsage({ id: 'msg_a', usage: { input_tokens: 5 }, diagnostics: null } as never, ref);
    await prepare({ ...BASE, messages: second! }, { ...ref, diagnostics: true });
    // The plan expects the prefix to carry over; the API says the tools changed (e.g. a proxy rewrote them).
    await recordUsage(
      { id: 'msg_b', usage: { input_tokens: 5 }, diagnostics: { cache_miss_reason: { type: 'tools_changed', cache_missed_input_tokens: 900 } } } as never,
      ref,
    );
    const stats = (await conversationStats(ref))!;
    expect(stats.requests[1]!.diagnostics).toEqual({ api: 'tools_changed', missedTokens: 900, predicted: null, comparable: true, disagree: true });
    expect(stats.totals.disagreements).toBe(1);
  });

  it('Session asks for them too, and reports them in stats and formatStats', async () => {
    server = await startFakeServer({ script: [...toolRounds(2), [{ type: 'text', text: 'done' }]], now: () => 5_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const session = new Session({
      model: 'claude-sonnet-4-6',
      instructions: INSTRUCTIONS,
      tools: TOOLS,
      diagnostics: true,
      handlers: { Read: (() => 'x') as never },
      now: () => 5_000,
    });
    session.startTurn('Read it.');
    for (;;) {
      const m = await session.step(client, { max_tokens: 256 });
      if (m.stop_reason !== 'tool_use') break;
    }
    const bodies = server.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as { diagnostics?: { previous_message_id: string | null } });
    expect(bodies[0]!.diagnostics).toEqual({ previous_message_id: null });
    expect(bodies[1]!.diagnostics!.previous_message_id).toMatch(/^msg_/);
    const stats = session.stats();
    expect(stats.totals.diagnosed).toBe(2);
    expect(stats.totals.disagreements).toBe(0);
    expect(session.formatStats()).toMatch(/API cache diagnostics: 2 requests, 0 disagreed/);
  });
});

describe('a prefix below the minimum cacheable length', () => {
  it('is said in plain words in the plan, and the API indeed reads nothing', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'hi' }]], now: () => 1 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const { params, plan } = await prepare(
      { model: 'claude-haiku-4-5', max_tokens: 64, system: 'You are terse.', messages: [{ role: 'user', content: 'Say hi.' }] },
      { conversationId: 'small', store: new MemoryConversationStore(), now: 1 },
    );
    expect(plan.belowMinimum).toMatchObject({ minimum: 4096 });
    expect(plan.belowMinimum!.message).toMatch(
      /Nothing will be cached: the prompt up to the last cache point is about \d+ tokens, below claude-haiku-4-5's minimum cacheable length of 4,096 tokens/,
    );
    const message = await client.messages.create(params);
    expect(message.usage.cache_creation_input_tokens ?? 0).toBe(0);
    // A prompt above the minimum carries no such note.
    const big = await prepare({ ...BASE, messages: requests(1, 1)[0]! }, { conversationId: 'big', store: new MemoryConversationStore(), now: 1 });
    expect(big.plan.belowMinimum).toBeUndefined();
  });
});

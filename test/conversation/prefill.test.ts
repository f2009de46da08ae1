/**
 * prepare with a prefill (a trailing assistant message) and with system-role
 * messages inside `messages`, against the fake Messages API with the real SDK:
 * the prefill is sent last, after the tail, never marked and never kept, and
 * priced as uncached input in the plan; a
 * model or setting the API refuses it with is a typed error naming the index.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { conversationStats, prepare, recordUsage, type PrepareParams } from '../../src/conversation/prepare.js';
import { promptCost, usageTokens } from '../../src/models/pricing.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { InvalidParamsError } from '../../src/errors.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { BASE } from './store-contract.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A model that still takes prefills (Claude 4.6 and later answer them with a 400). */
const MODEL = 'claude-sonnet-4-5';
const base = { ...BASE, model: MODEL };
const markers = (x: unknown) => JSON.stringify(x).split('cache_control').length - 1;

describe('prepare with a prefill', () => {
  it('a loop that forces JSON with a prefill: sent last after the tail, unmarked, never kept; the cache carries over (real SDK, fake API)', async () => {
    const read = (id: string) => [{ type: 'tool_use' as const, id, name: 'Read', input: { path: `src/${id}.ts` } }];
    server = await startFakeServer({
      script: [read('toolu_1'), read('toolu_2'), [{ type: 'text', text: '"answer": 42}' }], read('toolu_3'), [{ type: 'text', text: '"answer": 43}' }]],
      now: () => 5_000,
    });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const session = new Session({ model: MODEL, instructions: [BASE.system], tools: BASE.tools, request: { max_tokens: 1024 }, now: () => 5_000 });
    const ref = { conversationId: 'json', store, now: 5_000 };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files, then answer as JSON.' }];
    session.startTurn('Read the files, then answer as JSON.');
    const prefill: Anthropic.MessageParam = { role: 'assistant', content: '{' };
    const reads: number[] = [];
    for (let i = 0; i < 5; i++) {
      // The loop prefills when it wants the final JSON answer (requests 3 and 5).
      const withPrefill = i === 2 || i === 4;
      const tail = `live view ${i}`;
      const { params, plan, rendered } = await prepare({ ...base, messages: withPrefill ? [...messages, prefill] : messages }, { ...ref, tail });
      expect(plan.resync).toBeUndefined();
      expect(markers(params)).toBeLessThanOrEqual(4);
      // Session path for the same conversation: the same bytes, plus the prefill as the last message.
      session.setTail(tail);
      const expected = await session.request();
      if (withPrefill) {
        expect(params.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: '{' }] });
        expect(JSON.stringify(params.messages.at(-2))).toContain(tail); // the tail is before the prefill
        expect(JSON.stringify({ ...params, messages: params.messages.slice(0, -1) })).toBe(JSON.stringify(expected));
      } else {
        expect(JSON.stringify(params)).toBe(JSON.stringify(expected));
      }
      const message = await client.messages.create(params);
      // The prefill is billed as uncached input: the plan predicts the usage the API reports (the fake API counts
      // with the same tokenizer), prefill included, and prices it.
      const u = message.usage;
      expect(plan.usage.input_tokens).toBe(u.input_tokens);
      expect(plan.usage.cache_read_input_tokens + plan.usage.cache_creation_input_tokens).toBe(
        (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
      );
      expect(plan.tokens.total).toBe(u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0));
      expect(plan.cost).toBeCloseTo(promptCost(resolveProfile(MODEL).prices, usageTokens(plan.usage)), 12);
      if (withPrefill) {
        expect(plan.prefillTokens).toBeGreaterThan(0);
        expect(plan.usage.input_tokens).toBe(rendered.plan.usage.input_tokens + plan.prefillTokens!);
        expect(plan.cost).toBeGreaterThan(rendered.plan.cost);
      } else expect(plan.prefillTokens).toBeUndefined();
      await recordUsage(message, ref);
      // What recordUsage compared (local estimate vs reported input) includes the prefill: the calibration stays exact.
      expect((await conversationStats(ref))!.calibration).toBe(1);
      session.recordResponse(
        withPrefill ? ({ ...message, content: [{ type: 'text', text: `{${(message.content[0] as { text: string }).text}` }] } as Anthropic.Message) : message,
      );
      reads.push(message.usage.cache_read_input_tokens ?? 0);
      if (message.stop_reason === 'tool_use') {
        messages.push({ role: 'assistant', content: message.content });
        const use = message.content.find((b) => b.type === 'tool_use')!;
        const results = [{ type: 'tool_result' as const, tool_use_id: use.id, content: `contents of ${use.id}` }];
        messages.push({ role: 'user', content: results });
        session.recordToolResults(results);
      } else {
        // The loop keeps one assistant message: the prefill and what the model continued with.
        messages.push({ role: 'assistant', content: `{${(message.content[0] as { text: string }).text}` });
        messages.push({ role: 'user', content: 'Once more.' });
        session.startTurn('Once more.');
      }
    }
    // Every request after the first reads the previous one's entry: the prefill never entered the cached prefix.
    expect(reads[0]).toBe(0);
    for (const r of reads.slice(1)) expect(r).toBeGreaterThan(0);
    const stored = (await store.load('json'))!;
    expect(JSON.stringify(stored.state.turns)).toContain('{\\"answer\\": 42}');
    expect(stored.consumed.length).toBe(messages.length - 2); // the last response and 'Once more.' were never prepared
  });

  it('refuses a prefill the API would refuse, naming the message and the fix', async () => {
    const user = { role: 'user' as const, content: 'Answer as JSON.' };
    const run = (params: PrepareParams) => prepare(params, { conversationId: 'x', store: new MemoryConversationStore() });
    // Claude 4.6 and later: prefill removed (structured outputs instead), whatever the id's form.
    for (const model of ['claude-sonnet-4-6', 'claude-opus-4-7', 'global.anthropic.claude-opus-4-6-v1', 'claude-opus-5']) {
      await expect(run({ ...base, model, messages: [user, { role: 'assistant', content: '{' }] })).rejects.toThrow(/messages\[1\].*output_config\.format/);
    }
    await expect(
      run({ ...base, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [user, { role: 'assistant', content: '{' }] } as PrepareParams),
    ).rejects.toThrow(/messages\[1\].*extended thinking/);
    await expect(run({ ...base, messages: [user, { role: 'assistant', content: 'As an AI, I ' }] })).rejects.toThrow(/messages\[1\].*whitespace/);
    await expect(run({ ...base, messages: [user, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] }] })).rejects.toThrow(
      /messages\[1\]\.content\[0\].*only text/,
    );
    // Two assistant messages at the end are one prefill: the API combines consecutive same-role turns (refuse12).
    const merged = await run({ ...base, messages: [user, { role: 'assistant', content: 'done' }, { role: 'assistant', content: '{' }] });
    expect(merged.params.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'done' },
        { type: 'text', text: '{' },
      ],
    });
    // A trailing tool_use on a 4.6 model is named for what it is (a response missing its results), not as a refused prefill.
    await expect(
      run({ ...base, model: 'claude-sonnet-4-6', messages: [user, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] }] }),
    ).rejects.toThrow(/only text/);
    // An empty prefill is left out, on any model.
    const empty = await run({ ...base, model: 'claude-sonnet-4-6', messages: [user, { role: 'assistant', content: '' }] });
    expect(empty.params.messages.at(-1)?.role).toBe('user');
    // Thinking explicitly disabled and an older model: fine.
    const ok = await run({ ...base, thinking: { type: 'disabled' }, messages: [user, { role: 'assistant', content: '{' }] } as PrepareParams);
    expect(ok.params.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: '{' }] });
  });
});

describe('prepare with system-role messages', () => {
  it('leading system messages are appended to system (the same bytes as passing them there); later ones are a typed error naming the index', async () => {
    server = await startFakeServer({ script: [[{ type: 'text', text: 'ok' }]], now: () => 1 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    const user = { role: 'user' as const, content: 'Hello.' };
    const viaMessages = await prepare(
      {
        ...BASE,
        system: 'You are terse.',
        messages: [{ role: 'system', content: 'Answer in French.' }, { role: 'system', content: [{ type: 'text', text: 'No emoji.' }] }, user],
      },
      { conversationId: 'a', store: new MemoryConversationStore(), now: 1 },
    );
    const viaSystem = await prepare(
      {
        ...BASE,
        system: [
          { type: 'text', text: 'You are terse.' },
          { type: 'text', text: 'Answer in French.' },
          { type: 'text', text: 'No emoji.' },
        ],
        messages: [user],
      },
      { conversationId: 'b', store: new MemoryConversationStore(), now: 1 },
    );
    expect(JSON.stringify(viaMessages.params)).toBe(JSON.stringify(viaSystem.params));
    expect((await client.messages.create(viaMessages.params)).content).toMatchObject([{ type: 'text', text: 'ok' }]);

    // Indexes in errors and resyncs are the caller's own.
    const store = new MemoryConversationStore();
    const sys = { role: 'system' as const, content: 'Answer in French.' };
    const turn = [sys, user, { role: 'assistant' as const, content: 'Bonjour.' }, { role: 'user' as const, content: 'Encore.' }];
    await prepare({ ...BASE, messages: turn }, { conversationId: 'c', store, now: 1 });
    const edited = [sys, user, { role: 'assistant' as const, content: 'Salut.' }, { role: 'user' as const, content: 'Encore.' }];
    const { plan } = await prepare({ ...BASE, messages: edited }, { conversationId: 'c', store, now: 2 });
    expect(plan.resync).toMatchObject({ reason: 'history_edited', at: 2 });
    await expect(prepare({ ...BASE, messages: [user, sys] }, { conversationId: 'd', store, now: 1 })).rejects.toThrow(InvalidParamsError);
    await expect(prepare({ ...BASE, messages: [user, sys, user] }, { conversationId: 'd', store, now: 1 })).rejects.toThrow(
      /messages\[1\]\.role: a system-role message after the conversation started/,
    );
    await expect(prepare({ ...BASE, messages: [sys] }, { conversationId: 'd', store, now: 1 })).rejects.toThrow(/at least one user message/);
  });

  it("the beta's system messages (SDK 1.16): plain text is taken; one that says more than `system` can is refused, naming the field", async () => {
    const user = { role: 'user' as const, content: 'Hello.' };
    const run = (sys: Record<string, unknown>) =>
      prepare({ ...BASE, messages: [{ role: 'system', ...sys } as never, user] }, { conversationId: 'e', store: new MemoryConversationStore(), now: 1 });
    const plain = await run({ content: 'Answer in French.', clear_at: 'never', output_config: null });
    expect(plain.params.system?.at(-1)).toMatchObject({ type: 'text', text: 'Answer in French.' });
    // null is what a typed client sends for "not set", as for output_config.
    const unset = await run({ content: 'Answer in French.', clear_at: null });
    expect(unset.params.system?.at(-1)).toMatchObject({ type: 'text', text: 'Answer in French.' });
    // Taken into `system`, it would never be cleared: the model would see it on every later turn.
    await expect(run({ content: 'Answer in French.', clear_at: 'next_user_message' })).rejects.toThrow(
      /^messages\[0\]\.clear_at: "next_user_message": a leading system-role message is taken into `system`/,
    );
    await expect(run({ content: 'Be brief.', output_config: { effort: 'low' } })).rejects.toThrow(/^messages\[0\]\.output_config: /);
    await expect(run({ output_config: {} })).rejects.toThrow(/^messages\[0\]\.output_config: /);
    await expect(run({})).rejects.toThrow(/^messages\[0\]\.content: expected a string or an array of text blocks/);
    await expect(run({ content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'Read' } }] })).rejects.toThrow(
      /^messages\[0\]\.content\[0\]: a system-role message may hold only text/,
    );
  });
});

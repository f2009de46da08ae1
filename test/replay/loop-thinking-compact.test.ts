/**
 * Manual extended thinking and a compaction inside a long tool loop: without interleaved thinking Claude thinks only
 * in the loop's first response, so once a compaction summarizes the loop's first rounds the rendered final assistant
 * turn starts with a later round's tool_use and holds no thinking block. The API refuses that with thinking enabled
 * ("… a final `assistant` message must start with a thinking block … To avoid this requirement, disable `thinking`")
 * and the extended-thinking page says it disables thinking for such a request by itself ("Graceful thinking
 * degradation"). cachepoint sends it with thinking disabled and says so in the plan, on `prepare` and `Session`.
 * (check18's probe; found 2026-12-02)
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recordUsage } from '../../src/conversation/prepare.js';
import { InvalidParamsError } from '../../src/errors.js';
import { MODEL_PROFILES } from '../../src/models/profiles.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MANUAL = { type: 'enabled', budget_tokens: 2048 } as const;
const ROUNDS = 30;
const use = (r: number) => ({ type: 'tool_use' as const, id: `toolu_${r}`, name: 'Read', input: { path: `src/m${r}.ts` } });

/** One tool loop of ROUNDS rounds; thinking only in the first response (no interleaved thinking). */
function script(): unknown[] {
  const s: unknown[] = [[{ type: 'thinking', thinking: 'Read every module, then tidy.', signature: 'sig-1' }, use(1)]];
  for (let r = 2; r <= ROUNDS; r++) s.push([use(r)]);
  s.push([{ type: 'text', text: 'Done.' }]);
  return s;
}

const small = (model: string) => ({ ...MODEL_PROFILES[model]!, contextWindow: 8_000, minCacheableTokens: 1024 });

describe('a compaction inside a manual-thinking tool loop: the request goes with thinking disabled, never refused', () => {
  for (const model of ['claude-sonnet-4-5', 'claude-opus-4-6']) {
    for (const policy of ['conservative', 'economy'] as const) {
      it(`prepare: ${model}, ${policy}`, async () => {
        server = await startFakeServer({ script: script() as never, loopThinking: 'strict', contextWindow: 8_000 });
        const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
        const store = new MemoryConversationStore();
        const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Tidy up.' }];
        const disabled: boolean[] = [];
        let compacted = -1;
        let now = 1_000_000;
        for (let step = 0; step <= ROUNDS; step++) {
          now += 2_000;
          const { params, headers, plan } = await prepare(
            { model, max_tokens: 1024, thinking: MANUAL, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS, messages },
            { conversationId: 'c', store, now, render: { policy, profile: small(model) } },
          );
          if (compacted < 0 && plan.decisions.some((d) => d.type === 'compact')) compacted = step;
          const off = (params as { thinking?: { type: string } }).thinking?.type === 'disabled';
          disabled.push(off);
          expect(plan.thinkingDisabled !== undefined).toBe(off);
          if (off)
            expect(plan.thinkingDisabled).toMatch(/does not start with a thinking block in the rendered request .* thinking is disabled for this request/);
          const message = await client.messages.create(params, { headers });
          await recordUsage(message, { conversationId: 'c', store, now });
          messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
          const u = message.content.find((b) => b.type === 'tool_use');
          if (!u) break;
          messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: u.id, content: text(u.id, 900) }] });
        }
        // The loop ran to its end (the strict server refused nothing), a compaction took the loop's first rounds,
        // thinking stayed on until then and was off from then to the end of the loop.
        expect(server.requests.length).toBe(ROUNDS + 1);
        expect(compacted).toBeGreaterThan(0);
        expect(disabled.slice(0, compacted)).not.toContain(true);
        expect(disabled.slice(compacted)).not.toContain(false);
        expect(server.requests.map((r) => r.loopThinking).slice(1, compacted)).not.toContain('omitted');
      });
    }
  }

  it('Session: the same loop through session.request()', async () => {
    const model = 'claude-opus-4-6';
    server = await startFakeServer({ script: script() as never, loopThinking: 'strict', contextWindow: 8_000 });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
    let now = 1_000_000;
    const session = new Session({
      model,
      instructions: INSTRUCTIONS,
      tools: TOOLS,
      now: () => now,
      render: { policy: 'conservative', profile: small(model) },
      request: { max_tokens: 1024, thinking: MANUAL },
    });
    session.startTurn('Tidy up.');
    let off = 0;
    for (let step = 0; step <= ROUNDS; step++) {
      now += 2_000;
      const params = await session.request();
      if ((params as { thinking?: { type: string } }).thinking?.type === 'disabled') off++;
      const message = await client.messages.create(params, { headers: session.headers });
      session.recordResponse(message);
      const u = message.content.find((b) => b.type === 'tool_use');
      if (!u) break;
      session.recordToolResults([{ type: 'tool_result', tool_use_id: u.id, content: text(u.id, 900) }]);
    }
    expect(server.requests.length).toBe(ROUNDS + 1);
    expect(off).toBeGreaterThan(0);
  });

  it("the caller's own loop without its thinking: sent with thinking disabled; thinking elsewhere in the turn: refused", async () => {
    const read = { type: 'tool_use' as const, id: 'toolu_1', name: 'Read', input: { path: 'a' } };
    const answer = (id: string) => ({ role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: id, content: 'a' }] });
    const none: Anthropic.MessageParam[] = [{ role: 'user', content: 'read a' }, { role: 'assistant', content: [read] }, answer('toolu_1')];
    const out = await prepare(
      { model: 'claude-sonnet-4-5', max_tokens: 4096, thinking: MANUAL, tools: TOOLS, messages: none },
      { conversationId: 'x', store: new MemoryConversationStore() },
    );
    expect((out.params as { thinking?: unknown }).thinking).toEqual({ type: 'disabled' });
    expect(out.plan.thinkingDisabled).toMatch(/^the final assistant turn \(messages\[1\]\) does not start with a thinking block in the caller's messages/);
    const later: Anthropic.MessageParam[] = [
      ...none,
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 's' },
          { ...read, id: 'toolu_2' },
        ],
      },
      answer('toolu_2'),
    ];
    const run = prepare(
      { model: 'claude-sonnet-4-5', max_tokens: 4096, thinking: MANUAL, tools: TOOLS, messages: later },
      { conversationId: 'y', store: new MemoryConversationStore() },
    );
    await expect(run).rejects.toThrow(InvalidParamsError);
    await expect(run).rejects.toThrow(
      'messages[1]: the assistant turn these tool results continue (its first assistant message) does not start with a thinking block',
    );
  });
});

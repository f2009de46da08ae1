/**
 * Manual extended thinking checks the start of the final assistant *turn*, not the last assistant message: "If
 * thinking is enabled, the final assistant turn should start with a thinking block … From the model's perspective,
 * tool use loops are part of the assistant turn" (extended-thinking page, "Toggling thinking modes in conversations",
 * copy read via `search` 2026-12-02). Without interleaved thinking (manual mode on Claude 4 without the
 * `interleaved-thinking-2025-05-14` beta) Claude thinks once, at the start of the turn: the responses after a tool
 * result continue without a thinking block, and the API accepts them sent back so. (check18)
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recordUsage } from '../../src/conversation/prepare.js';
import { manualLoopThinkingIssue } from '../../src/internal/loop-thinking.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MANUAL = { type: 'enabled', budget_tokens: 2048 } as const;
const thought = { type: 'thinking', thinking: 't', signature: 's' };
const use = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { path: id } });
const result = (id: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x' }] });
const body = (messages: unknown[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 10, thinking: MANUAL, messages });

describe('manual thinking: the final assistant turn starts with its thinking (a tool loop is one turn)', () => {
  it('accepts a loop whose later responses continued without thinking; refuses a turn that did not start with it', () => {
    const continued = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [thought, use('toolu_1')] },
      result('toolu_1'),
      { role: 'assistant', content: [use('toolu_2')] },
      result('toolu_2'),
    ];
    expect(validateRequest(body(continued))).toBeNull();
    expect(manualLoopThinkingIssue(MANUAL, continued)).toBeUndefined();
    const unstarted = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [use('toolu_1')] },
      result('toolu_1'),
      { role: 'assistant', content: [thought, use('toolu_2')] },
      result('toolu_2'),
    ];
    expect(validateRequest(body(unstarted))?.message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/,
    );
    // A user message without a tool_result starts a new turn: the turn after it is checked.
    const next = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [use('toolu_1')] },
      result('toolu_1'),
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: [thought, use('toolu_2')] },
      result('toolu_2'),
      { role: 'assistant', content: [use('toolu_3')] },
      result('toolu_3'),
    ];
    expect(validateRequest(body(next))).toBeNull();
    expect(manualLoopThinkingIssue(MANUAL, next.slice(0, 7).concat([{ role: 'assistant', content: [use('toolu_3')] }, result('toolu_3')]))).toBeUndefined();
    expect(manualLoopThinkingIssue(MANUAL, [...next.slice(0, 5), { role: 'assistant', content: [use('toolu_2')] }, result('toolu_2')])?.index).toBe(5);
  });

  it('prepare and the real SDK: a loop without interleaved thinking (thinking only in its first response) is sent and accepted', async () => {
    const t = (r: number) => ({ type: 'tool_use' as const, id: `toolu_${r}`, name: 'Read', input: { path: `src/m${r}.ts` } });
    server = await startFakeServer({
      script: [[{ type: 'thinking', thinking: 'Read the modules one by one.', signature: 'sig-1' }, t(1)], [t(2)], [t(3)], [{ type: 'text', text: 'Done.' }]],
      loopThinking: 'strict',
    });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
    const store = new MemoryConversationStore();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Tidy up the modules.' }];
    let now = 1_000_000;
    for (let step = 0; step < 4; step++) {
      now += 2_000;
      const { params, headers } = await prepare(
        { model: 'claude-sonnet-4-5', max_tokens: 4096, thinking: MANUAL, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS, messages } as Parameters<
          typeof prepare
        >[0],
        { conversationId: 'c', store, now, tail: `live view ${step}` },
      );
      const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers });
      await recordUsage(message, { conversationId: 'c', store, now });
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
      const u = message.content.find((b) => b.type === 'tool_use');
      if (!u) break;
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: u.id, content: text(u.id, 1500) }] });
    }
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});

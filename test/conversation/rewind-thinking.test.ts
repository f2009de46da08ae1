/**
 * A conversation cut back (history truncated or edited) into an earlier turn's tool-use loop: that turn is the
 * current one again, and the API needs the thinking of its latest assistant message sent back unchanged. Economy
 * may have pruned (left out) that thinking while the turn was an earlier one; the cut must bring it back.
 */
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';

const base = {
  model: 'claude-sonnet-4-6',
  max_tokens: 16_000,
  system: INSTRUCTIONS.join('\n\n'),
  tools: TOOLS,
  thinking: { type: 'enabled', budget_tokens: 8_000 },
} as const;
const thought = (n: number) => ({ type: 'thinking' as const, thinking: `Considering step ${n}. `.repeat(60), signature: `sig-${n}-${'x'.repeat(40)}` });
const call = (n: number): MessageParam => ({
  role: 'assistant',
  content: [thought(n), { type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command: `ls ${n}` } }],
});
const result = (n: number): MessageParam => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `out ${n} `.repeat(300) }] });
const answer = (n: number): MessageParam => ({ role: 'assistant', content: [thought(n), { type: 'text', text: `Done with ${n}.` }] });

const turn1: MessageParam[] = [{ role: 'user', content: 'read a' }, call(1), result(1), call(2), result(2), answer(3)];
const turn2: MessageParam[] = [{ role: 'user', content: 'now b' }, call(4), result(4), call(5), result(5)];

const thinkingOf = (m: { content: unknown }) =>
  (Array.isArray(m.content) ? m.content : []).filter((b) => b.type === 'thinking').map((b) => b.thinking as string);

describe('a history cut back into an earlier turn', () => {
  it('sends the thinking of the latest assistant message again (economy had left it out while the turn was an earlier one)', async () => {
    const store = new MemoryConversationStore();
    const opts = (now: number) => ({ conversationId: 'c', store, now, render: { policy: 'economy' as const } });
    let now = 1_000;
    for (let k = 2; k <= turn1.length; k += 2) await prepare({ ...base, messages: turn1.slice(0, k - 1) }, opts((now += 3_000)));
    // An 8-minute pause: turn 2 starts cold, and turn 1's thinking is pruned (left out) as the turn goes on.
    now += 8 * 60_000;
    let sent: string[] = [];
    for (let k = 1; k <= turn2.length; k += 2) {
      const { params } = await prepare({ ...base, messages: [...turn1, ...turn2.slice(0, k)] }, opts((now += 3_000)));
      sent = params.messages.flatMap(thinkingOf);
    }
    expect(sent).not.toContain(thought(2).thinking);

    // The client goes back to turn 1, right after round 2's tool result (a fork from there).
    const { params, plan } = await prepare({ ...base, messages: turn1.slice(0, 5) }, opts((now += 3_000)));
    expect(plan.resync?.reason).toBe('history_truncated');
    const messages = params.messages;
    const lastAssistant = messages.at(-2)!;
    expect(lastAssistant.role).toBe('assistant');
    expect(thinkingOf(lastAssistant)).toEqual([thought(2).thinking]);
    // The whole tool-use loop of the current turn, as it was received.
    expect(messages.flatMap(thinkingOf)).toEqual([thought(1).thinking, thought(2).thinking]);
    expect(validateRequest(params)).toBeNull();
  });
});

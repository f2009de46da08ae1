/**
 * Preserved thinking through `prepare` when the client changes its history between two requests (models that bind
 * thinking): a text block added to the user message the previous request ended with sits before the response's
 * thinking, so that thinking's prefix changed ("adding a text block to an earlier user turn" is an edit on the
 * preserved-thinking page): it must be left out, or the API refuses the request. The fake server signs and checks.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { checkBinding } from '../../src/testing/fake-server-binding.js';
import { signedAnswer, thinkingOf } from '../helpers/binding.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';

const MODEL = 'claude-sonnet-5-5';

function answer(params: Anthropic.MessageCreateParamsNonStreaming, n: number): Anthropic.ContentBlockParam[] {
  return signedAnswer(params, n, [
    { type: 'thinking', thinking: `Thought ${n}.`, signature: `sig-${n}` },
    { type: 'tool_use', id: `toolu_${n}`, name: 'Read', input: { path: `src/${n}.ts` } },
  ]);
}

describe('preserved thinking: a history edited before the response', () => {
  it.each(['conservative', 'economy'] as const)(
    '%s: a text block added to the last user message the model saw leaves out the thinking after it',
    async (policy) => {
      const store = new MemoryConversationStore();
      const system = INSTRUCTIONS.map((i) => ({ type: 'text' as const, text: i }));
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] }];
      const send = async (now: number) => {
        const { params, rendered, plan } = await prepare(
          { model: MODEL, max_tokens: 256, system, tools: TOOLS, messages: structuredClone(messages) },
          { conversationId: 'edit', store, now, render: { policy } },
        );
        return { params: params as Anthropic.MessageCreateParamsNonStreaming, rendered, plan };
      };
      const first = await send(1000);
      expect(checkBinding(first.params as never, undefined)).toEqual([]);
      messages.push({ role: 'assistant', content: answer(first.params, 1) });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file 1' }] });
      const second = await send(2000);
      expect(checkBinding(second.params as never, undefined)).toEqual([]);
      expect(thinkingOf(second.params)).toEqual(['sig-1']);
      messages.push({ role: 'assistant', content: answer(second.params, 2) });
      // The client adds a note to the user message the second request ended with, then answers the tool call.
      (messages[2]!.content as Anthropic.ContentBlockParam[]).push({ type: 'text', text: 'Note: the CI runs on Node 22.' });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'file 2' }] });
      const third = await send(3000);
      expect(third.plan.resync?.reason).toBe('history_edited');
      expect(() => checkBinding(third.params as never, undefined)).not.toThrow();
      // Round 1's thinking keeps its prefix; round 2's was produced before the note: left out, and the plan says so.
      expect(thinkingOf(third.params)).toEqual(['sig-1']);
      const drops = third.rendered.decisions.filter((d) => d.type === 'prune' && d.reason === 'binding');
      expect(drops.map((d) => d.path)).toEqual(['turns/1/rounds/2/response/0']);
    },
  );
});

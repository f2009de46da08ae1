import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';
import { requests } from './store-contract.js';

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS };

/** Conversation c's requests: the shared script with its own texts (the tool_use ids are the same in all). */
function script(c: number): MessageParam[][] {
  return requests(3, 3, 300 + 50 * c).map((ms) => ms.map((m, i) => (i === 0 ? { role: 'user', content: `Conversation ${c}: fix the tests.` } : m)));
}

describe('prepare: interleaved conversations in one process', () => {
  it('each of 7 interleaved conversations gets the requests it gets alone, whatever the caller writes into them', async () => {
    const scripts = Array.from({ length: 7 }, (_, c) => script(c));
    const alone: string[][] = [];
    for (let c = 0; c < 7; c++) {
      const store = new MemoryConversationStore();
      const out: string[] = [];
      for (const [k, messages] of scripts[c]!.entries())
        out.push(JSON.stringify((await prepare({ ...base, messages }, { conversationId: `c${c}`, store, now: 1000 * (k + 1) })).params));
      alone.push(out);
    }
    const store = new MemoryConversationStore();
    for (let k = 0; k < scripts[0]!.length; k++) {
      // A different order each step, so conversations fall out of the recent slots and come back.
      const order = [0, 1, 2, 3, 4, 5, 6].sort((a, b) => ((a * 5 + k * 3) % 7) - ((b * 5 + k * 3) % 7));
      for (const c of order) {
        const { params } = await prepare({ ...base, messages: scripts[c]![k]! }, { conversationId: `c${c}`, store, now: 1000 * (k + 1) });
        expect(JSON.stringify(params), `conversation ${c} request ${k}`).toBe(alone[c]![k]);
        // The caller writes what it was handed.
        params.messages.push({ role: 'assistant', content: 'prefill' });
        for (const m of params.messages) if (Array.isArray(m.content) && !Object.isFrozen(m.content)) m.content.push({ type: 'text', text: 'written' });
        params.system?.push?.({ type: 'text', text: 'written' });
      }
    }
  });
});

/**
 * prepare recognises re-sent messages against flat arrays shared along a chain of records and extended in place
 * (src/conversation/mapping.ts SentIndex), and in process a record keeps the envelope it sent instead of its
 * digest. Whatever way a caller walks its message lists (back to any earlier one, two continuations of one stored
 * record, a retry, a rebuilt copy of the same list, an edit of the last message, another tool catalog), every request must carry the
 * messages it was given: the same request, markers aside, as a conversation started from scratch with them.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS };

/** The request without its cache markers. */
function unmarked(params: unknown): string {
  return JSON.stringify(params, (key, value) => (key === 'cache_control' ? undefined : value));
}

type Step = { from: number; op: 'extend' | 'same' | 'rebuilt' | 'edit' | 'side' | 'tools' };

async function replay(steps: readonly Step[]): Promise<void> {
  const store = new MemoryConversationStore();
  const side = new MemoryConversationStore();
  const lists: MessageParam[][] = [[{ role: 'user', content: [{ type: 'text', text: 'start' }] }]];
  let now = 1_000;
  let n = 0;
  // 'tools' switches between the full catalog and a copy of its first tool (a new array: compared by content).
  let tools = TOOLS;
  for (const { from, op } of steps) {
    let messages = lists[from % lists.length]!;
    if (op === 'extend')
      messages = [...messages, { role: 'assistant', content: `reply ${++n}` }, { role: 'user', content: [{ type: 'text', text: `question ${n}` }] }];
    else if (op === 'rebuilt') messages = structuredClone(messages);
    else if (op === 'edit' && messages.length > 2) messages = [...messages.slice(0, -1), { role: 'user', content: `edited ${++n}` }];
    else if (op === 'tools') tools = tools === TOOLS ? [structuredClone(TOOLS[0]!)] : TOOLS;
    now += 1000;
    // 'side': a second worker that loaded the stored record and continues in a store of its own.
    let target = store;
    if (op === 'side') {
      const record = await store.load('c');
      if (record) {
        await side.delete('c');
        await side.save(record, null);
        target = side;
      }
      messages = [...messages, { role: 'assistant', content: `side reply ${++n}` }, { role: 'user', content: `side question ${n}` }];
    }
    const { params } = await prepare({ ...base, tools, messages }, { conversationId: 'c', store: target, now });
    const fresh = await prepare({ ...base, tools, messages }, { conversationId: 'fresh', store: new MemoryConversationStore(), now });
    expect(unmarked(params)).toBe(unmarked(fresh.params));
    lists.push(messages);
  }
}

const CROSSED: Step[] = [
  { from: 0, op: 'extend' },
  { from: 1, op: 'side' },
  { from: 1, op: 'extend' },
  { from: 2, op: 'same' },
];

describe('prepare along branching message lists', () => {
  it('sends exactly the messages it was given, however the caller goes back, branches, retries or rebuilds its lists', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ from: fc.nat(40), op: fc.constantFrom<Step['op']>('extend', 'extend', 'same', 'rebuilt', 'edit', 'side', 'tools') }), {
          minLength: 4,
          maxLength: 20,
        }),
        replay,
      ),
      // First a hand-picked walk: a second worker extends the shared record, the first continues differently, then
      // the second worker's list comes to the first's store (its objects must not pass for the first's messages).
      { numRuns: 31, examples: [[CROSSED]] },
    );
  });
});

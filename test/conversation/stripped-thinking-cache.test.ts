/**
 * Models that do not keep thinking (keepsThinking:false): the API strips every thinking block before the last
 * user message that holds a block other than tool_result. The drop-in tail sits in that message next to the tool
 * results, so every entry a tool loop writes is, for the provider, a prefix without that turn's thinking. At the
 * next turn the renderer drops the thinking too: that is no change for those entries, and the ledger keeps them
 * (moved back by the dropped blocks). Before, it forgot them, its plan under-predicted the read, and a later prune or
 * hide bridged to an older entry than the provider's newest: a bust (review8, seed 85). Judged by the
 * provider cache simulator.
 */
import type { ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { customProfile } from '../../src/models/profiles.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';

const tokens = new BlockTokenCache(charCounter());
const TOOLS: Tool[] = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
const MODEL = 'claude-sonnet-4-5';
const ROUNDS = 8;

function id(r: number): string {
  return `toolu_${String(r).padStart(4, '0')}`;
}

/** Turn 1: ROUNDS tool calls, each after a thinking block, each result big enough for an entry; then the answer and turn 2. */
function history(): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Read the files.' }] }];
  for (let r = 1; r <= ROUNDS; r++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `I should read f${r}. `.repeat(40), signature: `sig${r}` },
        { type: 'tool_use', id: id(r), name: 'Read', input: { path: `f${r}` } },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id(r), content: `${r}`.repeat(3_000) }] });
  }
  messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Now summarize them.' }] });
  return messages;
}

async function run(keepsThinking: boolean, tail: boolean) {
  const profile = customProfile('stripped-thinking', { contextWindow: 1_000_000, keepsThinking, prices: { input: 3 } });
  const store = new MemoryConversationStore();
  const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
  const all = history();
  let now = 1_700_000_000_000;
  const send = async (messages: MessageParam[]) => {
    const out = await prepare(
      {
        model: MODEL,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        system: 'You read files.',
        tools: TOOLS,
        messages: structuredClone(messages),
      },
      {
        conversationId: 'c',
        store,
        now,
        render: { profile, tokens },
        ...(tail ? { tail: [{ type: 'text', text: `live view at ${now}` } as ContentBlockParam] } : {}),
      },
    );
    const r = sim.send(out.params as never, now);
    now += 1000;
    expect(r.rejected).toBeNull();
    return { out, r };
  };
  for (let n = 3; n <= 2 * ROUNDS + 1; n += 2) {
    const { r } = await send(all.slice(0, n));
    expect(r.explain?.bust).toBe(false);
  }
  // Turn 2's first request: turn 1's thinking leaves the stream.
  const first = await send(all);
  return first;
}

describe('a model that does not keep thinking, a tail next to tool results', () => {
  it("the next turn's first request: the ledger keeps the entries written under the stripped thinking", async () => {
    const first = await run(false, true);
    expect(first.r.explain?.bust).toBe(false);
    expect(first.r.usage?.cache_read_input_tokens).toBeGreaterThan(5_000);
    // The plan predicts that read: the ledger kept the entry (moved back by the dropped thinking).
    expect(first.out.plan.usage.cache_read_input_tokens).toBe(first.r.usage?.cache_read_input_tokens);
  });

  it('without a tail (tool results only) and on a model that keeps thinking: the plan predicts the read too', async () => {
    for (const [keeps, tail] of [
      [false, false],
      [true, true],
    ] as const) {
      const first = await run(keeps, tail);
      expect(first.r.explain?.bust).toBe(false);
      expect(first.out.plan.usage.cache_read_input_tokens).toBe(first.r.usage?.cache_read_input_tokens);
    }
  });
});

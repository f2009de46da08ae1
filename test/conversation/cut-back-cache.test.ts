/**
 * After the client edits its history (prepare resyncs `history_edited` and cuts the timeline back to the edited
 * message), the blocks of the edited message that did not change keep their cache standing: the renderer still
 * knows the entries the provider holds for them (and their hides), so a marker reaches the longest warm prefix
 * before the first changed byte. Judged by the provider cache simulator (no bust: a warm entry matching the
 * request's prefix that no marker could reach).
 */
import type { ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare } from '../../src/conversation/prepare.js';
import { customProfile } from '../../src/models/profiles.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';

const tokens = new BlockTokenCache(charCounter());
const profile = customProfile('cut-back', { contextWindow: 1_000_000, keepsThinking: true, prices: { input: 3 } });
const TOOLS: Tool[] = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
const MODEL = 'claude-sonnet-4-5';

/** A loop of `rounds` tool calls in one turn; the first result is big enough to be worth an entry of its own. */
function history(rounds: number): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Read the files.' }] }];
  for (let r = 1; r <= rounds; r++) {
    const id = `toolu_${String(r).padStart(4, '0')}`;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { path: `f${r}` } }] });
    const text = r === 1 ? 'x'.repeat(8_000) : `file ${r}`;
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
  }
  return messages;
}

async function run(edit: (messages: MessageParam[]) => void, hideFirst: boolean) {
  const store = new MemoryConversationStore();
  const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
  const all = history(30);
  let now = 1_700_000_000_000;
  const send = async (messages: MessageParam[], hide?: boolean) => {
    const out = await prepare(
      { model: MODEL, max_tokens: 1024, system: 'You read files.', tools: TOOLS, messages: structuredClone(messages) },
      { conversationId: 'c', store, now, render: { profile, tokens }, ...(hide ? { hide: [{ toolUseId: 'toolu_0001', force: true }] } : {}) },
    );
    const r = sim.send(out.params as never, now);
    now += 1000;
    return { out, r };
  };
  // The loop grows one round a request: the first result's entry is written while it is the newest block.
  for (let n = 3; n <= all.length; n += 2) {
    const { r } = await send(all.slice(0, n), hideFirst && n === 5);
    expect(r.rejected).toBeNull();
  }
  edit(all);
  return send(all);
}

describe('prepare after a history edit reads the warm prefix before the edit', () => {
  it('a block pushed onto a tool-result message: the entry ending on its unchanged result is read', async () => {
    const { out, r } = await run((m) => (m[2]!.content as ContentBlockParam[]).push({ type: 'text', text: 'pushed' }), false);
    expect(out.plan.resync?.reason).toBe('history_edited');
    expect(r.rejected).toBeNull();
    expect(r.explain?.bust).toBe(false);
    expect(r.usage?.cache_read_input_tokens).toBeGreaterThan(2_000);
    // The plan predicts that read too: the ledger kept the entry.
    expect(out.plan.usage.cache_read_input_tokens).toBe(r.usage?.cache_read_input_tokens);
  });

  it('a hidden result re-sent unchanged keeps its hide (the bytes the provider cached last)', async () => {
    const { out, r } = await run((m) => (m[2]!.content as ContentBlockParam[]).push({ type: 'text', text: 'pushed' }), true);
    expect(out.plan.resync?.reason).toBe('history_edited');
    expect(Object.keys(out.rendered.state.hidden)).toContain('turns/1/rounds/1/results/toolu_0001');
    expect(r.rejected).toBeNull();
    expect(r.explain?.bust).toBe(false);
  });
});

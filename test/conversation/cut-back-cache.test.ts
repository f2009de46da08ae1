/**
 * After the client edits its history (prepare resyncs `history_edited` and cuts the timeline back to the edited
 * message), the blocks of the edited message that did not change keep their cache standing: the renderer still
 * knows the entries the provider holds for them (and their hides), so a marker reaches the longest warm prefix
 * before the first changed byte. Judged by the provider cache simulator (no bust: a warm entry matching the
 * request's prefix that no marker could reach).
 */
import type { ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import type { ConversationStore } from '../../src/conversation/types.js';
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

/**
 * A cut (or a retry that drops the last response), then the loop re-sends what it cut: the provider still holds the
 * entries the requests before the cut wrote past it (5 minutes / 1 hour after their last use), so a marker must reach
 * them (found by the doors × simulator property, seed 7 case 366: 5,932 tokens).
 */
describe('prepare after a cut, when the loop re-sends what it cut', () => {
  /** The next round of the loop: more than 20 lookback positions (text blocks) before its tool call. */
  function wideRound(r: number): MessageParam[] {
    const id = `toolu_${String(r).padStart(4, '0')}`;
    const texts: ContentBlockParam[] = Array.from({ length: 24 }, (_, k) => ({ type: 'text', text: `note ${r}.${k}` }));
    return [
      { role: 'assistant', content: [...texts, { type: 'tool_use', id, name: 'Read', input: { path: `f${r}` } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `file ${r}` }] },
    ];
  }

  /** A loop's sender: each request prepared on `store` and sent to a fresh simulator, a second apart from `start`. */
  function sender(store: ConversationStore, start: number) {
    const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
    let now = start;
    return async (messages: MessageParam[]) => {
      const out = await prepare(
        { model: MODEL, max_tokens: 1024, system: 'You read files.', tools: TOOLS, messages: structuredClone(messages) },
        { conversationId: 'c', store, now, render: { profile, tokens } },
      );
      const r = sim.send(out.params as never, now);
      now += 1000;
      expect(r.rejected).toBeNull();
      return { out, r };
    };
  }

  async function loop(cutTo: number | readonly number[] | undefined, store: ConversationStore = new MemoryConversationStore()) {
    const all = history(30);
    const send = sender(store, 1_700_000_000_000);
    for (let n = 3; n <= all.length; n += 2) await send(all.slice(0, n));
    for (const to of cutTo === undefined ? [] : typeof cutTo === 'number' ? [cutTo] : cutTo) {
      const cut = await send(all.slice(0, to + 1));
      expect(cut.out.plan.resync?.reason).toBe('history_truncated');
    }
    return send([...all, ...wideRound(31)]);
  }

  it('without a cut: the newest entry is read (the bridge reaches it)', async () => {
    const { r } = await loop(undefined);
    expect(r.explain?.bust).toBe(false);
  });

  it('a cut back to the first message, then the whole history again: no bust', async () => {
    const { out, r } = await loop(0);
    expect(out.plan.resync).toBeUndefined();
    expect(r.explain?.bust).toBe(false);
    // The plan predicts the read the provider makes: the record remembered the entries of the cut stretch.
    expect(out.plan.usage.cache_read_input_tokens).toBe(r.usage?.cache_read_input_tokens);
  });

  it('a retry that drops the last response (a cut to the last tool result), then the whole history again: no bust', async () => {
    const { r } = await loop(58);
    expect(r.explain?.bust).toBe(false);
  });

  it('two cuts in a row (a retry, then a rewind), then the whole history again: no bust', async () => {
    const { out, r } = await loop([58, 0]);
    expect(r.explain?.bust).toBe(false);
    expect(out.plan.usage.cache_read_input_tokens).toBe(r.usage?.cache_read_input_tokens);
  });

  it('a cut, then another continuation: nothing of the shadow is believed (the plan predicts what the provider does)', async () => {
    const store = new MemoryConversationStore();
    await loop(undefined, store);
    const all = history(30);
    const other = history(30).map((m, i) =>
      i >= 5 && m.role === 'user' ? { ...m, content: [{ ...(m.content as ContentBlockParam[])[0]!, content: `other ${i}` }] } : m,
    ) as MessageParam[];
    const send = sender(store, 1_800_000_000_000);
    await send(all);
    await send(all.slice(0, 5));
    expect((await store.load('c'))?.cut).toBeDefined();
    const { out, r } = await send(other);
    expect(out.plan.resync).toBeUndefined();
    expect(r.explain?.bust).toBe(false);
    expect(out.plan.usage.cache_read_input_tokens).toBe(r.usage?.cache_read_input_tokens);
    expect((await store.load('c'))?.cut).toBeUndefined();
  });

  it('the same through a file store: the shadow of the cut is stored with the conversation (state version 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachepoint-cut-'));
    try {
      const store = new FileConversationStore({ dir });
      const { out, r } = await loop(0, store);
      expect(r.explain?.bust).toBe(false);
      expect(out.plan.usage.cache_read_input_tokens).toBe(r.usage?.cache_read_input_tokens);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the shadow is dropped once the loop re-sent the stretch', async () => {
    const store = new MemoryConversationStore();
    await loop(0, store);
    expect((await store.load('c'))?.cut).toBeUndefined();
  });
});

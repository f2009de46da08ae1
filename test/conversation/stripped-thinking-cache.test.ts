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
import { exportState, importState } from '../../src/conversation/state.js';
import { ConversationStateError } from '../../src/errors.js';
import { customProfile } from '../../src/models/profiles.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';

const tokens = new BlockTokenCache(charCounter());
const TOOLS: Tool[] = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
const MODEL = 'claude-sonnet-4-5';
const ROUNDS = 8;
/** The request's fields besides the messages. */
const PARAMS = { model: MODEL, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, system: 'You read files.', tools: TOOLS } as const;

function id(r: number): string {
  return `toolu_${String(r).padStart(4, '0')}`;
}

/**
 * Turn 1: ROUNDS tool calls, each after a thinking block, each result big enough for an entry; then the answer and
 * turn 2. `note`: a text next to round 2's tool result.
 */
function history(note?: string): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Read the files.' }] }];
  for (let r = 1; r <= ROUNDS; r++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `I should read f${r}. `.repeat(40), signature: `sig${r}` },
        { type: 'tool_use', id: id(r), name: 'Read', input: { path: `f${r}` } },
      ],
    });
    const results: ContentBlockParam[] = [{ type: 'tool_result', tool_use_id: id(r), content: `${r}`.repeat(3_000) }];
    if (r === 2 && note !== undefined) results.push({ type: 'text', text: note });
    messages.push({ role: 'user', content: results });
  }
  messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Now summarize them.' }] });
  return messages;
}

/** `older`: the record is carried to turn 2 as an older build wrote it (whether the last user message stripped, no boundary). */
async function run(keepsThinking: boolean, tail: boolean, older = false) {
  const profile = customProfile('stripped-thinking', { contextWindow: 1_000_000, keepsThinking, prices: { input: 3 } });
  let store = new MemoryConversationStore();
  const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
  const all = history();
  let now = 1_700_000_000_000;
  const send = async (messages: MessageParam[]) => {
    const out = await prepare(
      { ...PARAMS, messages: structuredClone(messages) },
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
  if (older) {
    const doc = JSON.parse(exportState((await store.load('c'))!));
    expect(doc.record.lastRender.thinkingStripped).toBe(true);
    delete doc.record.lastRender.stripBoundary;
    store = new MemoryConversationStore();
    await store.save(importState(JSON.stringify(doc), 'c'), null);
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

/**
 * Text injected into an earlier round's tool-result message: the API strips the thinking before that message in
 * every later request of the turn, and keeps the thinking after it. The strip boundary is that message, not the last
 * one: the entries up to it are prefixes without the turn's first thinking blocks (valid again at the next turn, which
 * drops all of them), the entries past the next thinking block hold it.
 */
async function injectedEarlier(roundTrip = false) {
  const profile = customProfile('stripped-thinking', { contextWindow: 1_000_000, keepsThinking: false, prices: { input: 3 } });
  let store = new MemoryConversationStore();
  const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
  // The earlier round's message that strips: text next to its tool result.
  const messages = history('Note: f3 moved to g3.');
  let now = 1_700_000_000_000;
  const sent: { out: Awaited<ReturnType<typeof prepare>>; r: ReturnType<CacheSimulator['send']> }[] = [];
  for (let n = 3; n <= messages.length; n += 2) {
    if (roundTrip && n === messages.length) {
      // The conversation goes on from its exported JSON (another process).
      const text = exportState((await store.load('c'))!);
      store = new MemoryConversationStore();
      await store.save(importState(text, 'c'), null);
    }
    const out = await prepare(
      { ...PARAMS, messages: structuredClone(messages.slice(0, n)) },
      {
        conversationId: 'c',
        store,
        now,
        render: { profile, tokens },
      },
    );
    const r = sim.send(out.params as never, now);
    now += 1000;
    expect(r.rejected).toBeNull();
    sent.push({ out, r });
  }
  return sent;
}

describe('a model that does not keep thinking, text injected into an earlier round', () => {
  it("the next turn's first request reads the entry written up to that round: the plan predicts the simulator's read", async () => {
    const sent = await injectedEarlier();
    for (const { r } of sent) expect(r.explain?.bust).toBe(false);
    const first = sent.at(-1)!;
    // Turn 1's entries up to round 2's message hold no thinking for the provider (the user message and two results
    // of 750 tokens); the ones past it hold round 3's, which this turn drops.
    expect(first.r.usage?.cache_read_input_tokens).toBeGreaterThan(1_500);
    expect(first.out.plan.usage.cache_read_input_tokens).toBe(first.r.usage?.cache_read_input_tokens);
  });

  it('the strip boundary goes with the exported state: continued from its JSON, the plan still predicts the read', async () => {
    const first = (await injectedEarlier(true)).at(-1)!;
    expect(first.r.explain?.bust).toBe(false);
    expect(first.r.usage?.cache_read_input_tokens).toBeGreaterThan(1_500);
    expect(first.out.plan.usage.cache_read_input_tokens).toBe(first.r.usage?.cache_read_input_tokens);
  });

  it("an older build's record (only whether the last user message stripped) is read; a damaged boundary or view is a typed error", async () => {
    const first = await run(false, true, true);
    expect(first.r.explain?.bust).toBe(false);
    expect(first.out.plan.usage.cache_read_input_tokens).toBe(first.r.usage?.cache_read_input_tokens);
    const store = new MemoryConversationStore();
    const profile = customProfile('stripped-thinking', { contextWindow: 1_000_000, keepsThinking: false, prices: { input: 3 } });
    const tail = [{ type: 'text', text: 'live view' } as ContentBlockParam];
    await prepare(
      { model: MODEL, max_tokens: 4096, system: 'You read files.', tools: TOOLS, messages: history().slice(0, 5) },
      { conversationId: 'd', store, now: 1, render: { profile, tokens }, tail },
    );
    const doc = JSON.parse(exportState((await store.load('d'))!));
    // The tail strips: the boundary is past the stable stream, and an older build reads the flag it knows.
    expect(doc.record.lastRender.stripBoundary).toBe(doc.record.lastRender.stream.length);
    for (const bad of [-1, 1.5, '3']) {
      doc.record.lastRender.stripBoundary = bad;
      expect(() => importState(JSON.stringify(doc), 'd'), String(bad)).toThrow(ConversationStateError);
    }
    doc.record.lastRender.stripBoundary = 0;
    for (const bad of [{}, { from: -1, stripBoundary: 0, stream: [], entries: [] }, { from: 0, stripBoundary: 0, stream: [{ path: 1 }], entries: [] }]) {
      doc.record.lastRender.otherView = bad;
      expect(() => importState(JSON.stringify(doc), 'd'), JSON.stringify(bad)).toThrow(/other view/);
    }
  });
});

describe('a model that does not keep thinking, a tail every other request', () => {
  it.each([
    ['in one process', false],
    ['through exported JSON at every request', true],
  ] as const)('the entries of the request before the previous one, which stripped the same thinking, stay reachable (%s)', async (_, roundTrip) => {
    // Text next to round 2's tool result strips the thinking before it; a tail in every other request strips all of
    // it. Each request's entries past round 3's thinking hold for the request after next, not for the next one; the
    // rounds are long (8 text blocks: more positions than the lookback reaches in two rounds), so only the ledger's
    // bridge reaches them. Before, the ledger forgot them at the next request: a bust in 8 of 12 requests.
    const profile = customProfile('stripped-thinking', { contextWindow: 1_000_000, keepsThinking: false, prices: { input: 3 } });
    let store = new MemoryConversationStore();
    const sim = new CacheSimulator({ profile, countTokens: (b: unknown) => tokens.tokens(b) });
    const messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Read the files.' }] }];
    let now = 1_700_000_000_000;
    for (let r = 1; r <= 12; r++) {
      if (roundTrip && r > 1) {
        const text = exportState((await store.load('c'))!);
        store = new MemoryConversationStore();
        await store.save(importState(text, 'c'), null);
      }
      const tail = r % 2 === 0 ? { tail: [{ type: 'text', text: `live view ${r}` } as ContentBlockParam] } : {};
      const out = await prepare({ ...PARAMS, messages: structuredClone(messages) }, { conversationId: 'c', store, now, render: { profile, tokens }, ...tail });
      const sent = sim.send(out.params as never, now);
      expect(sent.rejected).toBeNull();
      expect(sent.explain?.bust, `request ${r}`).toBe(false);
      now += 1000;
      const texts = Array.from({ length: 8 }, (_, k): ContentBlockParam => ({ type: 'text', text: `step ${r}.${k} `.repeat(20) }));
      const thinking: ContentBlockParam = { type: 'thinking', thinking: `think ${r} `.repeat(30), signature: `s${r}` };
      messages.push({ role: 'assistant', content: [thinking, ...texts, { type: 'tool_use', id: id(r), name: 'Read', input: { path: `f${r}` } }] });
      const results: ContentBlockParam[] = [{ type: 'tool_result', tool_use_id: id(r), content: `${r}`.repeat(2_000) }];
      if (r === 2) results.push({ type: 'text', text: 'Note: f3 moved to g3.' });
      messages.push({ role: 'user', content: results });
    }
  });
});

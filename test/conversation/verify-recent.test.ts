/**
 * `verifyRecent` (docs/drop-in.md, "How messages map onto the timeline"): the last K re-sent messages are
 * checked in full (message, content array, role, every block, by identity); older ones by the message object
 * alone. The boundary, both ways, for the default (64) and a small K; `Infinity` checks everything; a replaced
 * message object is seen at any age; a state imported from another process compares everything on its first
 * request. And the consumed list shared along a chain of records: each record keeps exactly its own.
 */
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { InvalidParamsError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, type PrepareOptions } from '../../src/conversation/prepare.js';
import { exportState, importState } from '../../src/conversation/state.js';
import { INSTRUCTIONS, TOOLS } from '../helpers/build.js';
import { requests } from './store-contract.js';

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS };
const MARK = 'appended later';
const block = { type: 'text' as const, text: MARK };

/** A one-turn conversation of `rounds` tool rounds prepared request by request; returns its last messages (the same objects). */
async function conversation(rounds: number, verifyRecent: number | undefined, id = 'c') {
  const store = new MemoryConversationStore();
  const options: PrepareOptions = { conversationId: id, store, ...(verifyRecent !== undefined ? { verifyRecent } : {}) };
  const all = requests(1, rounds, 200);
  for (const m of all) await prepare({ ...base, messages: m }, { ...options, now: 1 });
  const messages = all.at(-1)!;
  const again = () => prepare({ ...base, messages }, { ...options, now: 2 });
  return { store, messages, again, options };
}

const contentOf = (m: MessageParam) => m.content as object[];

type Edit = (messages: MessageParam[], i: number) => void;
/** On the same message object: a push onto its content array, or a new content array. */
const push: Edit = (m, i) => void contentOf(m[i]!).push(block);
const newArray: Edit = (m, i) => void (m[i]!.content = [...contentOf(m[i]!), block] as MessageParam['content']);
/** The usual immutable update: a new message object. */
const replaced: Edit = (m, i) => void (m[i] = { ...m[i]!, content: [...contentOf(m[i]!), block] } as MessageParam);

async function edited(rounds: number, verifyRecent: number | undefined, edit: Edit, at: (n: number) => number) {
  const c = await conversation(rounds, verifyRecent);
  const i = at(c.messages.length);
  edit(c.messages, i);
  const { params, plan } = await c.again();
  return { i, plan, json: JSON.stringify(params.messages) };
}

describe('verifyRecent: which re-sent messages are checked in full', () => {
  // 40 rounds: 81 messages, so the default window (64) leaves 17 older ones.
  for (const [k, rounds] of [
    [undefined, 40],
    [5, 6],
  ] as const) {
    const K = k ?? 64;
    describe(`verifyRecent ${k === undefined ? 'default (64)' : k}`, () => {
      for (const [name, edit] of [
        ['a push onto the content array', push],
        ['a new content array on the same message object', newArray],
      ] as const) {
        it(`${name} at n−K (the oldest message checked in full) is seen`, async () => {
          const { i, plan, json } = await edited(rounds, k, edit, (n) => n - K);
          expect(plan.resync).toMatchObject({ reason: 'history_edited', at: i });
          expect(json).toContain(MARK);
        });

        it(`${name} at n−K−1 is not seen (the message is sent as it was first sent), unless verifyRecent: Infinity`, async () => {
          const unseen = await edited(rounds, k, edit, (n) => n - K - 1);
          expect(unseen.plan.resync).toBeUndefined();
          expect(unseen.plan.appended).toBe(0);
          expect(unseen.json).not.toContain(MARK);
          const seen = await edited(rounds, Number.POSITIVE_INFINITY, edit, (n) => n - K - 1);
          expect(seen.plan.resync).toMatchObject({ reason: 'history_edited', at: seen.i });
          expect(seen.json).toContain(MARK);
        });
      }

      it('a replaced message object is seen at any age (the oldest assistant message, and the first message)', async () => {
        for (const at of [1, 2]) {
          const { i, plan, json } = await edited(rounds, k, replaced, () => at);
          expect(plan.resync).toMatchObject({ reason: 'history_edited', at: i });
          expect(json).toContain(MARK);
        }
        const first = await conversation(rounds, k);
        first.messages[0] = { role: 'user', content: 'Task 1: fix the tests, then the docs.' };
        const { plan, params } = await first.again();
        expect(plan.resync).toMatchObject({ reason: 'history_edited', at: 0 });
        expect(JSON.stringify(params.messages)).toContain('then the docs');
      });
    });
  }

  it('Infinity sees a push onto the content array of the oldest messages', async () => {
    for (const at of [1, 2]) {
      const { plan, json } = await edited(40, Number.POSITIVE_INFINITY, push, () => at);
      expect(plan.resync).toMatchObject({ reason: 'history_edited', at });
      expect(json).toContain(MARK);
    }
  });

  it('0 checks only the message objects: an unchanged retry and appends are still recognised', async () => {
    const c = await conversation(6, 0);
    const { plan } = await c.again();
    expect(plan.resync).toBeUndefined();
    expect(plan.appended).toBe(0);
    push(c.messages, c.messages.length - 1);
    expect((await c.again()).plan.resync).toBeUndefined();
  });

  it('a state loaded from another process has no objects to compare: its first request compares every message by content', async () => {
    const c = await conversation(40, undefined);
    const text = exportState((await c.store.load('c'))!);
    push(c.messages, 2); // older than the window: in this process, not seen
    const elsewhere = new MemoryConversationStore();
    await elsewhere.save(importState(text, 'c'), null);
    const { plan, params } = await prepare({ ...base, messages: c.messages }, { conversationId: 'c', store: elsewhere, now: 2 });
    expect(plan.resync).toMatchObject({ reason: 'history_edited', at: 2 });
    expect(JSON.stringify(params.messages)).toContain(MARK);
  });

  it('refuses a verifyRecent that is not a whole number ≥ 0 or Infinity', async () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'Hi' }];
    for (const verifyRecent of [-1, 1.5, Number.NaN, '64' as unknown as number]) {
      await expect(prepare({ ...base, messages }, { conversationId: 'x', store: new MemoryConversationStore(), verifyRecent })).rejects.toThrow(
        InvalidParamsError,
      );
    }
  });
});

describe('the consumed list, shared along a chain of records', () => {
  it('each record keeps exactly its own messages: an older record exports and continues as it was', async () => {
    const store = new MemoryConversationStore();
    const all = requests(1, 4, 200);
    await prepare({ ...base, messages: all[0]! }, { conversationId: 'k', store, now: 1 });
    const r1 = (await store.load('k'))!;
    for (const m of all.slice(1)) await prepare({ ...base, messages: m }, { conversationId: 'k', store, now: 1 });
    const latest = (await store.load('k'))!;
    expect(latest.consumed).toBe(r1.consumed); // shared, not copied per request
    expect(JSON.parse(exportState(r1)).record.consumed).toHaveLength(all[0]!.length);
    expect(JSON.parse(exportState(latest)).record.consumed).toHaveLength(all.at(-1)!.length);
    // A branch from the old record (another worker read it) copies: the latest record's messages stay as they were.
    const side = new MemoryConversationStore();
    await side.save(r1, null);
    const branch: MessageParam[] = [...all[0]!, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Thanks.' }];
    const b = await prepare({ ...base, messages: branch }, { conversationId: 'k', store: side, now: 2 });
    expect(b.plan.resync).toBeUndefined();
    expect(b.plan.appended).toBe(2);
    const again = await prepare({ ...base, messages: all.at(-1)! }, { conversationId: 'k', store, now: 2 });
    expect(again.plan.resync).toBeUndefined();
    expect(again.plan.appended).toBe(0);
    expect(JSON.parse(exportState((await side.load('k'))!)).record.consumed).toHaveLength(branch.length);
  });
});

describe('messages sent as new objects every request (a loop that parses JSON, the AI SDK): compared by content', () => {
  /** The conversation prepared from fresh copies of every request; then the last request again, copied and edited. */
  async function fresh(edit: (messages: MessageParam[]) => void) {
    const store = new MemoryConversationStore();
    const all = requests(1, 40, 200);
    for (const m of all) await prepare({ ...base, messages: structuredClone(m) }, { conversationId: 'f', store, now: 1 });
    const messages = structuredClone(all.at(-1)!);
    edit(messages);
    return prepare({ ...base, messages }, { conversationId: 'f', store, now: 2 });
  }
  const result = (m: MessageParam[], i: number) => (m[i]!.content as { content: string }[])[0]!;
  const call = (m: MessageParam[], i: number) => (m[i]!.content as { type: string; input?: Record<string, unknown> }[]).find((b) => b.type === 'tool_use')!;

  it('an unchanged copy, and one with cache markers added to old blocks, is no change', async () => {
    expect((await fresh(() => {})).plan).toMatchObject({ appended: 0 });
    const marked = await fresh((m) => {
      Object.assign(contentOf(m[2]!)[0]!, { cache_control: { type: 'ephemeral' } });
      Object.assign(call(m, 1), { cache_control: { type: 'ephemeral', ttl: '1h' } });
    });
    expect(marked.plan.resync).toBeUndefined();
    expect(marked.plan.appended).toBe(0);
  });

  it('one character changed deep in an old message, a changed or extended tool input, or a reordered block is an edit, as the digest says', async () => {
    for (const [at, edit] of [
      [2, (m: MessageParam[]) => (result(m, 2).content = `${result(m, 2).content.slice(0, 50)}X${result(m, 2).content.slice(51)}`)],
      [3, (m: MessageParam[]) => (call(m, 3).input = { path: 'src/other.ts' })],
      [5, (m: MessageParam[]) => (call(m, 5).input = { ...call(m, 5).input, extra: 1 })],
      // The same keys in another order: other bytes, so an edit (sent again as the loop has it now).
      [4, (m: MessageParam[]) => (contentOf(m[4]!)[0] = Object.fromEntries(Object.entries(contentOf(m[4]!)[0]!).reverse()))],
    ] as const) {
      const { plan } = await fresh(edit);
      expect(plan.resync).toMatchObject({ reason: 'history_edited', at });
    }
    // The message object's own key order is not part of what is sent (role and blocks are): no change.
    const swapped = await fresh((m) => void (m[7] = { content: m[7]!.content, role: m[7]!.role } as MessageParam));
    expect(swapped.plan.resync).toBeUndefined();
  });

  it('a value that serializes through toJSON (a Date in a tool input) is compared by its JSON', async () => {
    const store = new MemoryConversationStore();
    const first: MessageParam[] = [
      { role: 'user', content: 'When?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_d', name: 'Clock', input: { at: new Date(0) } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_d', content: 'ok' }] },
    ];
    await prepare({ ...base, messages: first }, { conversationId: 'd', store, now: 1 });
    const copy = (at: Date): MessageParam[] => [
      first[0]!,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_d', name: 'Clock', input: { at } }] },
      first[2]!,
    ];
    expect((await prepare({ ...base, messages: copy(new Date(0)) }, { conversationId: 'd', store, now: 2 })).plan.resync).toBeUndefined();
    expect((await prepare({ ...base, messages: copy(new Date(1000)) }, { conversationId: 'd', store, now: 3 })).plan.resync).toMatchObject({
      reason: 'history_edited',
      at: 1,
    });
  });
});

/**
 * The contract every conversation store passes (memory, file, Redis): load and
 * compare-and-set save, typed conflicts that write nothing, exactly one winner
 * among concurrent writers, odd ids, and a conversation prepared through the
 * store rendering the same bytes as one kept in memory (state survives export).
 */
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { ConversationConflictError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recordUsage, conversationStats } from '../../src/conversation/prepare.js';
import { exportState } from '../../src/conversation/state.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';

export const BASE = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS };

/** A plain loop's requests over `turns` turns of `rounds` tool rounds (results big enough to prune when cold). */
export function requests(turns: number, rounds: number, size = 1500): MessageParam[][] {
  const out: MessageParam[][] = [];
  const messages: MessageParam[] = [];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: `Task ${t}: fix the tests.` });
    for (let r = 1; r <= rounds; r++) {
      out.push([...messages]);
      const id = `toolu_${t}_${r}`;
      messages.push({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `Step ${t}.${r}.`, signature: `sig-${t}-${r}` },
          { type: 'tool_use', id, name: 'Read', input: { path: `src/${t}-${r}.ts` } },
        ],
      });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text(id, size) }] });
    }
    out.push([...messages]);
    if (t < turns) messages.push({ role: 'assistant', content: [{ type: 'text', text: `Turn ${t} done.` }] });
  }
  return out;
}

async function someRecord(id: string): Promise<ConversationRecord> {
  const scratch = new MemoryConversationStore();
  await prepare({ ...BASE, messages: requests(1, 1)[0]! }, { conversationId: id, store: scratch, now: 1000 });
  return (await scratch.load(id))!;
}

/**
 * Deletes the conversation `held` was loaded from and creates it again through `prepare` (its revision restarts): a
 * save of `held` is a conflict and leaves the new one as it is, which then goes on (saved at updatedAt 4000).
 */
async function refusedOnceRecreated(store: ConversationStore, held: ConversationRecord): Promise<ConversationRecord> {
  await store.delete(held.id);
  await prepare({ ...BASE, messages: [{ role: 'user', content: 'Another task.' }] }, { conversationId: held.id, store, now: 2000 });
  const recreated = (await store.load(held.id))!;
  expect(recreated.revision).toBe(held.revision);
  const err = await store.save({ ...held, revision: held.revision + 1, updatedAt: 3000 }, held.revision).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConversationConflictError);
  expect(exportState((await store.load(held.id))!)).toBe(exportState(recreated));
  await store.save({ ...recreated, revision: recreated.revision + 1, updatedAt: 4000 }, recreated.revision);
  return recreated;
}

/** Resolves once `store` answers a load again (a redis-server just started or thawed); throws after ~5 s. */
export async function answering(store: ConversationStore): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await store.load('probe');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error('the store did not answer again');
}

export function describeConversationStore(name: string, make: () => Promise<ConversationStore & { close?(): Promise<void> }>): void {
  describe(`conversation store contract: ${name}`, () => {
    it('loads nothing for an unknown id, saves a new conversation with expected null, then by revision', async () => {
      const store = await make();
      expect(await store.load('nobody')).toBeUndefined();
      const r1 = await someRecord('a');
      await store.save(r1, null);
      expect((await store.load('a'))!.revision).toBe(1);
      await store.save({ ...r1, revision: 2 }, 1);
      expect((await store.load('a'))!.revision).toBe(2);
      await store.close?.();
    });

    it('a save naming another revision is a typed conflict and writes nothing', async () => {
      const store = await make();
      const r1 = await someRecord('b');
      await store.save(r1, null);
      await expect(store.save({ ...r1, revision: 2 }, null)).rejects.toThrow(ConversationConflictError);
      const err = await store.save({ ...r1, revision: 5 }, 3).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConversationConflictError);
      expect(err).toMatchObject({ conversationId: 'b', expected: 3, actual: 1 });
      expect((await store.load('b'))!.revision).toBe(1);
      await store.close?.();
    });

    it('concurrent writers from the same revision: exactly one wins', async () => {
      const store = await make();
      const r1 = await someRecord('c');
      await store.save(r1, null);
      const writers = Array.from({ length: 6 }, (_, i) => store.save({ ...r1, revision: 2, updatedAt: i }, 1));
      const settled = await Promise.allSettled(writers);
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
      for (const s of settled) if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(ConversationConflictError);
      expect((await store.load('c'))!.revision).toBe(2);
      await store.close?.();
    });

    it('a conversation deleted and re-created: a writer that loaded the old one cannot save over the new one', async () => {
      // Revisions restart at 1 in a re-created conversation: without more than the revision, the old one's revision N
      // passed the new one's compare-and-set (check15: ABA), and its stale timeline replaced the new conversation.
      const store = await make();
      await prepare({ ...BASE, messages: requests(1, 1)[0]! }, { conversationId: 'aba', store, now: 1000 });
      const held = (await store.load('aba'))!; // a worker's load, for the request it is rendering
      await refusedOnceRecreated(store, held);
      expect((await store.load('aba'))!.updatedAt).toBe(4000);
      await store.close?.();
    });

    it('a record without an incarnation (written by an older build) is saved by its revision alone', async () => {
      const store = await make();
      const { incarnation: _none, ...old } = await someRecord('older');
      await store.save(old, null);
      await store.save({ ...old, revision: 2 }, 1);
      const loaded = (await store.load('older'))!;
      expect(loaded.revision).toBe(2);
      expect(loaded.incarnation).toBeUndefined();
      await store.close?.();
    });

    it("a writer holding an older build's record (no incarnation) cannot save over the conversation re-created since", async () => {
      // Memory and file compare the stored record's incarnation with the writer's (none): the re-created one has one.
      // Redis skipped its check when the writer had none, saved the stale record and dropped the new one's incarnation.
      const store = await make();
      const { incarnation: _none, ...old } = await someRecord('aba-old');
      await store.save(old, null);
      const held = (await store.load('aba-old'))!;
      expect(held.incarnation).toBeUndefined();
      const recreated = await refusedOnceRecreated(store, held);
      expect((await store.load('aba-old'))!.incarnation).toBe(recreated.incarnation);
      await store.close?.();
    });

    it('keeps conversations apart, whatever their ids', async () => {
      const store = await make();
      const ids = ['../escape', 'a/b', 'ünïcødé 💬', '{tag}', '.', 'x'.repeat(400)];
      for (const id of ids) await store.save(await someRecord(id), null);
      for (const id of ids) expect((await store.load(id))!.id).toBe(id);
      await store.delete('a/b');
      expect(await store.load('a/b')).toBeUndefined();
      expect(await store.load('../escape')).toBeDefined();
      await store.close?.();
    });

    it('a conversation prepared through the store renders the same bytes as one kept in memory', async () => {
      const store = await make();
      const memory = new MemoryConversationStore();
      let now = 10_000;
      const decisions: string[] = [];
      for (const [i, messages] of requests(2, 5).entries()) {
        // One long pause makes the cache cold: prune decisions become part of the stored state.
        now += i === 7 ? 10 * 60_000 : 2_000;
        const options = { conversationId: 'same', now, tail: `clock ${now}`, render: { prune: { keepTurns: 0, keepRounds: 2, minChars: 500, reuse: false } } };
        const viaStore = await prepare({ ...BASE, messages }, { ...options, store });
        const inMemory = await prepare({ ...BASE, messages }, { ...options, store: memory });
        expect(JSON.stringify(viaStore.params), `request ${i}`).toBe(JSON.stringify(inMemory.params));
        expect(viaStore.plan.usage).toEqual(inMemory.plan.usage);
        expect(viaStore.plan.resync).toBeUndefined();
        decisions.push(...viaStore.plan.decisions.map((d) => d.type));
        const usage = {
          input_tokens: 10,
          cache_read_input_tokens: viaStore.plan.usage.cache_read_input_tokens,
          cache_creation_input_tokens: 5,
          output_tokens: 3,
        };
        await recordUsage({ id: `msg_${i}`, usage }, { conversationId: 'same', store, now });
        await recordUsage({ id: `msg_${i}`, usage }, { conversationId: 'same', store: memory, now });
      }
      expect(decisions).toContain('prune');
      const a = await store.load('same');
      const b = await memory.load('same');
      // The same state; each conversation was created on its own, so each has its own incarnation.
      expect(a!.incarnation).not.toBe(b!.incarnation);
      expect(exportState({ ...a!, incarnation: 'x' })).toBe(exportState({ ...b!, incarnation: 'x' }));
      expect((await conversationStats({ conversationId: 'same', store }))!.totals.requests).toBe(12);
      await store.close?.();
    });

    it('a cut, then the loop re-sends what it cut: the same bytes and plan as in memory (the cut shadow is kept)', async () => {
      const store = await make();
      const memory = new MemoryConversationStore();
      const all = requests(1, 8, 6000);
      // The loop goes on, cuts back to its first message (a rewind), then sends its whole array again.
      const sequence = [...all.slice(0, 6), all[0]!, all[6]!, all[7]!];
      let now = 10_000;
      for (const [i, messages] of sequence.entries()) {
        now += 2_000;
        const options = { conversationId: 'cut', now };
        const viaStore = await prepare({ ...BASE, messages }, { ...options, store });
        const inMemory = await prepare({ ...BASE, messages }, { ...options, store: memory });
        expect(JSON.stringify(viaStore.params), `request ${i}`).toBe(JSON.stringify(inMemory.params));
        expect(viaStore.plan.usage, `request ${i}`).toEqual(inMemory.plan.usage);
        if (i === 6) expect((await store.load('cut'))!.cut).toEqual((await memory.load('cut'))!.cut);
      }
      // The re-sent stretch was read from the entries written before the cut.
      const last = await prepare({ ...BASE, messages: sequence.at(-1)! }, { conversationId: 'cut', now, store });
      expect(last.plan.usage.cache_read_input_tokens).toBeGreaterThan(6 * 1500);
      await store.close?.();
    });
  });
}

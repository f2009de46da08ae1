/** prepare(): incremental mapping, resync, typed errors, the store fallback, usage fed back. */
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  ConversationConflictError,
  ConversationStateError,
  HideRefusedError,
  InvalidParamsError,
  TimelineError,
  PathNotFoundError,
  UnknownModelError,
} from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { conversationStats, formatConversationStats, prepare, recallFromConversation, recordUsage } from '../../src/conversation/prepare.js';
import type { ConversationRecord, ConversationStore } from '../../src/conversation/types.js';
import { Session } from '../../src/session/session.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';
import { requests } from './store-contract.js';

const SYSTEM = INSTRUCTIONS.join('\n\n');
/** The start of round 4's tool result, as it appears in a request's JSON. */
const text4 = JSON.stringify(text('toolu_1_4', 1500).slice(0, 200)).slice(1, -1);

const history = (turns: number, rounds: number) => requests(turns, rounds);

const base = { model: 'claude-sonnet-4-6', max_tokens: 1024, system: SYSTEM, tools: TOOLS };

/** A memory store that fails with `message` once told: at load (and so at save too), or at save only. */
function failingStore(message: string) {
  const inner = new MemoryConversationStore();
  let failing: 'load' | 'save' | undefined;
  const store: ConversationStore = {
    load: async (id) => {
      if (failing === 'load') throw new Error(message);
      return inner.load(id);
    },
    save: async (rec, exp) => {
      if (failing !== undefined) throw new Error(message);
      return inner.save(rec, exp);
    },
    delete: (id) => inner.delete(id),
  };
  return { inner, store, fail: (at: 'load' | 'save' | undefined) => (failing = at) };
}

describe('prepare', () => {
  it('maps only the appended messages, keeps cache points within budget, passes other fields through', async () => {
    const store = new MemoryConversationStore();
    let now = 1_000;
    const plans = [];
    for (const messages of history(2, 3)) {
      const { params, plan } = await prepare({ ...base, temperature: 0.2, messages }, { conversationId: 'c', store, now: (now += 1000) });
      expect(params.temperature).toBe(0.2);
      expect(params.max_tokens).toBe(1024);
      expect(JSON.stringify(params).split('cache_control').length - 1).toBeLessThanOrEqual(4);
      expect(plan.resync).toBeUndefined();
      plans.push(plan);
    }
    expect(plans.map((p) => p.appended)).toEqual([1, 2, 2, 2, 2, 2, 2, 2]);
    expect(plans.map((p) => p.revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // After the first request, each one reads what the previous one wrote.
    for (const p of plans.slice(1)) expect(p.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('gives the same bytes as Session for the same conversation', async () => {
    const store = new MemoryConversationStore();
    const session = new Session({ model: 'claude-sonnet-4-6', instructions: [SYSTEM], tools: TOOLS, request: { max_tokens: 1024 }, now: () => 5_000 });
    const requests = history(2, 2);
    let seen = 0;
    for (const messages of requests) {
      // Feed the Session what the loop appended since the last request.
      for (const m of messages.slice(seen)) {
        if (m.role === 'assistant') session.recordResponse({ content: m.content, usage: { input_tokens: 0, output_tokens: 0 } } as never);
        else if (typeof m.content === 'string') session.startTurn(m.content);
        else session.recordToolResults(m.content as never);
      }
      seen = messages.length;
      session.setTail('live view: 3 files open');
      const expected = await session.request();
      const { params } = await prepare({ ...base, messages }, { conversationId: 's', store, now: 5_000, tail: 'live view: 3 files open' });
      expect(JSON.stringify(params)).toBe(JSON.stringify(expected));
    }
  });

  it('a retry of the same request maps nothing and renders the same bytes', async () => {
    const store = new MemoryConversationStore();
    const [first] = history(1, 1);
    const a = await prepare({ ...base, messages: first! }, { conversationId: 'r', store, now: 1 });
    const b = await prepare({ ...base, messages: first! }, { conversationId: 'r', store, now: 2 });
    expect(b.plan.appended).toBe(0);
    expect(b.plan.resync).toBeUndefined();
    expect(JSON.stringify(b.params)).toBe(JSON.stringify(a.params));
  });

  it('resynchronises when history is truncated (a retry dropped the last response) and says so', async () => {
    const store = new MemoryConversationStore();
    const requests = history(1, 3);
    for (const m of requests.slice(0, 3)) await prepare({ ...base, messages: m }, { conversationId: 't', store, now: 1 });
    const { params, plan } = await prepare({ ...base, messages: requests[1]! }, { conversationId: 't', store, now: 2 });
    expect(plan.resync).toMatchObject({ reason: 'history_truncated', at: 3 });
    const fresh = await prepare({ ...base, messages: requests[1]! }, { conversationId: 'fresh', store: new MemoryConversationStore(), now: 2 });
    expect(JSON.stringify(params.messages)).toBe(JSON.stringify(fresh.params.messages));
    // And it extends normally afterwards.
    const next = await prepare({ ...base, messages: requests[2]! }, { conversationId: 't', store, now: 3 });
    expect(next.plan.resync).toBeUndefined();
    expect(next.plan.appended).toBe(2);
  });

  it('resynchronises when a message was edited, cutting back to the last message both agree on', async () => {
    const store = new MemoryConversationStore();
    const requests = history(1, 3);
    for (const m of requests) await prepare({ ...base, messages: m }, { conversationId: 'e', store, now: 1 });
    const edited = structuredClone(requests.at(-1)!);
    (edited[2]!.content as { content: string }[])[0]!.content = 'a different result';
    const { params, plan } = await prepare({ ...base, messages: edited }, { conversationId: 'e', store, now: 2 });
    expect(plan.resync).toMatchObject({ reason: 'history_edited', at: 2 });
    expect(plan.appended).toBe(edited.length - 2);
    expect(JSON.stringify(params)).toContain('a different result');
    const fresh = await prepare({ ...base, messages: edited }, { conversationId: 'e2', store, now: 2 });
    expect(JSON.stringify(params.messages)).toBe(JSON.stringify(fresh.params.messages));
  });

  it('a history mapped in one request (each response and its results as one edit) is cut back right at any message edited', async () => {
    // Each edit: the conversation first prepared with the whole history at once, then with one message replaced.
    const whole = history(2, 3).at(-1)!;
    for (let i = 1; i < whole.length; i++) {
      const store = new MemoryConversationStore();
      await prepare({ ...base, messages: whole }, { conversationId: 'w', store, now: 1 });
      const edited = [...whole];
      const m = edited[i]!;
      const content = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
      edited[i] = {
        ...m,
        content: content.map((b) => (b.type === 'tool_result' ? { ...b, content: `edited ${i}` } : b.type === 'text' ? { ...b, text: `edited ${i}` } : b)),
      } as MessageParam;
      if (JSON.stringify(edited[i]) === JSON.stringify(whole[i])) continue; // thinking and tool_use only: nothing edited
      const { params, plan } = await prepare({ ...base, messages: edited }, { conversationId: 'w', store, now: 2 });
      const fresh = await prepare({ ...base, messages: edited }, { conversationId: 'fresh', store: new MemoryConversationStore(), now: 2 });
      expect(plan.resync, `message ${i}`).toMatchObject({ reason: 'history_edited', at: i });
      expect(plan.appended).toBe(whole.length - i);
      expect(JSON.stringify(params.messages), `message ${i}`).toBe(JSON.stringify(fresh.params.messages));
    }
  });

  it('recognises old messages sent as new objects (a loop that parses JSON each time) by content, and a replaced block by identity', async () => {
    const store = new MemoryConversationStore();
    const requests = history(2, 2);
    const plans = [];
    for (const m of requests) plans.push((await prepare({ ...base, messages: structuredClone(m) }, { conversationId: 'json', store, now: 1 })).plan);
    expect(plans.every((p) => p.resync === undefined)).toBe(true);
    expect(plans.slice(1).map((p) => p.appended)).toEqual(requests.slice(1).map((m, i) => m.length - requests[i]!.length));
    // The same objects again, with one block of an old message replaced (not edited in place): seen as an edit.
    const same = requests.at(-1)!;
    await prepare({ ...base, messages: same }, { conversationId: 'id', store, now: 1 });
    const edited = [...same];
    edited[2] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1_1', content: 'replaced' }] };
    const { plan } = await prepare({ ...base, messages: edited }, { conversationId: 'id', store, now: 2 });
    expect(plan.resync).toMatchObject({ reason: 'history_edited', at: 2 });
  });

  it('sees every edit of a re-sent message but an in-place edit of a block: a new message, a new content array, a push onto or a replaced element of its content array', async () => {
    // docs/drop-in.md: the last 64 re-sent messages (verifyRecent) are recognised by the message, its content array and each block.
    const run = async (id: string, edit: (messages: MessageParam[]) => void) => {
      const store = new MemoryConversationStore();
      const requests = history(1, 3);
      for (const m of requests) await prepare({ ...base, messages: m }, { conversationId: id, store, now: 1 });
      const messages = requests.at(-1)!;
      edit(messages);
      return prepare({ ...base, messages }, { conversationId: id, store, now: 2 });
    };
    const block = { type: 'text' as const, text: 'appended later' };
    const content = (m: MessageParam[]) => m[2]!.content as object[];
    for (const edit of [
      (m: MessageParam[]) => (m[2] = { ...m[2]!, content: [...content(m), block] } as MessageParam),
      (m: MessageParam[]) => (m[2]!.content = [...content(m), block] as MessageParam['content']),
      (m: MessageParam[]) => content(m).push(block),
      (m: MessageParam[]) => content(m).splice(0, 1, { ...(content(m)[0] as object), content: 'appended later' }),
    ]) {
      const { params, plan } = await run('seen', edit);
      expect(plan.resync).toMatchObject({ reason: 'history_edited', at: 2 });
      expect(JSON.stringify(params.messages)).toContain('appended later');
    }
    // A block edited in place is not looked for (that would read every block object of the history): what was sent stays.
    const { params, plan } = await run('unseen', (m) => ((content(m)[0] as { content: unknown }).content = 'appended later'));
    expect(plan.resync).toBeUndefined();
    expect(plan.appended).toBe(0);
    expect(JSON.stringify(params.messages)).not.toContain('appended later');
  });

  it('two continuations prepared from the same stored revision each keep their own messages (what records share is never overwritten)', async () => {
    const store = new MemoryConversationStore();
    const first: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'start' }] }];
    await prepare({ ...base, messages: first }, { conversationId: 'b', store, now: 1 });
    const r1 = (await store.load('b'))!;
    // One worker continues: its record extends what r1 knew about the messages.
    const a: MessageParam[] = [...first, { role: 'assistant', content: 'reply A' }, { role: 'user', content: 'question A' }];
    expect((await prepare({ ...base, messages: a }, { conversationId: 'b', store, now: 2 })).plan.resync).toBeUndefined();
    // Another worker had read r1 and continues differently, in a store of its own.
    const side = new MemoryConversationStore();
    await side.save(r1, null);
    const b: MessageParam[] = [...first, { role: 'assistant', content: 'reply B' }, { role: 'user', content: 'question B' }];
    const other = await prepare({ ...base, messages: b }, { conversationId: 'b', store: side, now: 2 });
    expect(other.plan.resync).toBeUndefined();
    expect(JSON.stringify(other.params.messages)).toContain('question B');
    expect(JSON.stringify(other.params.messages)).not.toContain('question A');
    // Each branch recognises its own messages, and only its own: A's objects sent to B's record are an edit.
    const a2: MessageParam[] = [...a, { role: 'assistant', content: 'reply A2' }, { role: 'user', content: 'question A2' }];
    const next = await prepare({ ...base, messages: a2 }, { conversationId: 'b', store, now: 3 });
    expect(next.plan).toMatchObject({ appended: 2 });
    expect(next.plan.resync).toBeUndefined();
    expect(JSON.stringify(next.params.messages)).not.toContain('B');
    const crossed = await prepare({ ...base, messages: a }, { conversationId: 'b', store: side, now: 3 });
    expect(crossed.plan.resync).toMatchObject({ reason: 'history_edited', at: 1 });
    expect(JSON.stringify(crossed.params.messages)).toContain('question A');
    expect(JSON.stringify(crossed.params.messages)).not.toContain('B');
  });

  it('hides what the agent asks to hide: sticky in the store, recallable by path, the same bytes as Session.hide', async () => {
    const store = new MemoryConversationStore();
    const session = new Session({ model: 'claude-sonnet-4-6', instructions: [SYSTEM], tools: TOOLS, request: { max_tokens: 1024 }, now: () => 5_000 });
    const requests = history(1, 6);
    let seen = 0;
    for (const [i, messages] of requests.entries()) {
      for (const m of messages.slice(seen)) {
        if (m.role === 'assistant') session.recordResponse({ content: m.content, usage: { input_tokens: 0, output_tokens: 0 } } as never);
        else if (typeof m.content === 'string') session.startTurn(m.content);
        else session.recordToolResults(m.content as never);
      }
      seen = messages.length;
      // At request 6 the agent asks to hide the result of round 4 (sent once, in the editable zone).
      const hide = i === 5 ? [{ toolUseId: 'toolu_1_4', note: 'superseded', force: true }] : undefined;
      if (hide) session.hide('turns/1/rounds/4/results/toolu_1_4', { note: 'superseded', force: true });
      const expected = await session.request();
      const { params, plan } = await prepare({ ...base, messages }, { conversationId: 'h', store, now: 5_000, ...(hide ? { hide } : {}) });
      expect(JSON.stringify(params)).toBe(JSON.stringify(expected));
      if (hide) expect(plan.hides).toEqual([{ path: 'turns/1/rounds/4/results/toolu_1_4', decision: expect.objectContaining({ type: 'hide' }) }]);
      else expect(plan.hides).toBeUndefined();
      if (i === 4) expect(JSON.stringify(params)).toContain(text4);
      if (i >= 5) expect(JSON.stringify(params)).not.toContain(text4);
    }
    const original = await recallFromConversation('turns/1/rounds/4/results/toolu_1_4', { conversationId: 'h', store });
    expect(JSON.stringify(original)).toContain(text4);
    // Asking again is a no-op; a path that does not exist is a typed error.
    const again = await prepare(
      { ...base, messages: requests.at(-1)! },
      { conversationId: 'h', store, now: 5_000, hide: ['turns/1/rounds/4/results/toolu_1_4'] },
    );
    expect(again.plan.hides?.[0]?.decision).toMatchObject({ type: 'hide', tokensRemoved: 0 });
    await expect(
      prepare({ ...base, messages: requests.at(-1)! }, { conversationId: 'h', store, now: 5_000, hide: [{ toolUseId: 'toolu_nope' }] }),
    ).rejects.toThrow(HideRefusedError);
    await expect(recallFromConversation('turns/9', { conversationId: 'h', store })).rejects.toThrow(PathNotFoundError);
  });

  it('a hide outside the editable zone throws (nothing saved) unless deferred', async () => {
    const store = new MemoryConversationStore();
    const requests = history(1, 8);
    for (const m of requests) await prepare({ ...base, messages: m }, { conversationId: 'z', store, now: 1 });
    const before = (await store.load('z'))!.revision;
    const last = requests.at(-1)!;
    await expect(prepare({ ...base, messages: last }, { conversationId: 'z', store, now: 2, hide: [{ toolUseId: 'toolu_1_1' }] })).rejects.toThrow(
      /outside the editable zone/,
    );
    expect((await store.load('z'))!.revision).toBe(before);
    const { plan } = await prepare({ ...base, messages: last }, { conversationId: 'z', store, now: 2, hide: [{ toolUseId: 'toolu_1_1', defer: true }] });
    expect(plan.hides?.[0]?.decision.type).toBe('defer');
    expect((await store.load('z'))!.state.deferred.map((d) => d.path)).toEqual(['turns/1/rounds/1/results/toolu_1_1']);
    await expect(prepare({ ...base, messages: last }, { conversationId: 'z', store, hide: [{ path: 'a', toolUseId: 'b' }] as never })).rejects.toThrow(
      /options\.hide\[0\]/,
    );
  });

  it('a loop that rebuilds system and tools for every request: unchanged content is no change; a changed tool is', async () => {
    const store = new MemoryConversationStore();
    const requests = history(1, 3);
    const system = [{ type: 'text' as const, text: SYSTEM }];
    for (const m of requests) {
      const { plan } = await prepare(
        { ...base, system: structuredClone(system), tools: structuredClone(TOOLS), messages: m },
        { conversationId: 'rb', store, now: 1 },
      );
      expect(plan.resync).toBeUndefined();
    }
    const tools = structuredClone(TOOLS);
    tools[0] = { ...tools[0]!, description: `${tools[0]!.description} (v2)` };
    const { plan } = await prepare({ ...base, system, tools, messages: requests.at(-1)! }, { conversationId: 'rb', store, now: 2 });
    expect(plan.resync?.reason).toBe('tools_changed');
  });

  it('a rebuilt 20 kB system prompt or tool catalog with one character changed in the middle is a change (same length, every request exact)', async () => {
    // Deterministic 20 kB texts: a byte changed anywhere must re-render, never reuse the stored envelope.
    const long = (seed: string, n: number) =>
      Array.from({ length: Math.ceil(n / seed.length) }, (_, i) => `${seed}${i % 10}`)
        .join('')
        .slice(0, n);
    const system = [{ type: 'text' as const, text: long('You are a careful coding agent; read before you edit. ', 20_000) }];
    const tools = structuredClone(TOOLS).map((t, i) => ({ ...t, description: long(`Tool ${i}: what it does and when to use it. `, 5_000) }));
    const swap = (s: string, at: number) => `${s.slice(0, at)}${s[at] === 'x' ? 'y' : 'x'}${s.slice(at + 1)}`;
    const requests = history(1, 3);
    const send = (id: string, i: number, sys: typeof system, tls: typeof tools) =>
      prepare(
        { ...base, system: JSON.parse(JSON.stringify(sys)), tools: JSON.parse(JSON.stringify(tls)), messages: requests[i]! },
        { conversationId: id, store, now: i },
      );
    const store = new MemoryConversationStore();
    const edits: [string, typeof system, typeof tools][] = [
      ['system_changed', [{ type: 'text', text: swap(system[0]!.text, 10_000) }], tools],
      ['tools_changed', system, tools.map((t, i) => (i === 1 ? { ...t, description: swap(t.description, 2_500) } : t))],
      // A nested leaf deep in a schema, same length.
      [
        'tools_changed',
        system,
        tools.map((t, i) => (i === tools.length - 1 ? JSON.parse(JSON.stringify(t).replace('"type":"string"', '"type":"strinG"')) : t)),
      ],
    ];
    for (const [k, [reason, sys, tls]] of edits.entries()) {
      expect(JSON.stringify(sys).length + JSON.stringify(tls).length).toBe(JSON.stringify(system).length + JSON.stringify(tools).length);
      const id = `mid-${k}`;
      for (let i = 0; i < 2; i++) expect((await send(id, i, system, tools)).plan.resync).toBeUndefined();
      const { params, plan } = await send(id, 2, sys, tls);
      expect(plan.resync?.reason).toBe(reason);
      // The bytes are those of a conversation that had the changed envelope from the start.
      const fresh = await send(`fresh-${k}`, 2, sys, tls);
      expect(JSON.stringify({ system: params.system, tools: params.tools })).toBe(JSON.stringify({ system: fresh.params.system, tools: fresh.params.tools }));
      // The same content rebuilt again is no change.
      expect((await send(id, 2, sys, tls)).plan.resync).toBeUndefined();
    }
  });

  it('a rebuilt system or tool catalog: every kind of change is a change (the flat compare of what was sent), another key order is not', async () => {
    type Tools = Record<string, unknown>[];
    const tools = structuredClone(TOOLS) as unknown as Tools;
    const system = [{ type: 'text' as const, text: SYSTEM }];
    const schema = (t: Record<string, unknown>) => t.input_schema as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    const edit = (f: (t: Tools) => void): Tools => {
      const copy = structuredClone(tools);
      f(copy);
      return copy;
    };
    const deleteLastKey = (o: Record<string, unknown>) => delete o[Object.keys(o).at(-1)!];
    const rename = (o: Record<string, unknown>, from: string, to: string) =>
      Object.fromEntries(Object.entries(o).map(([k, v]) => [k === from ? to : k, v] as [string, unknown]));
    const changes: [string, Tools, unknown][] = [
      ['a key renamed, same value', edit((t) => (t[0] = rename(t[0]!, 'description', 'descriptiom'))), system],
      ['a key dropped', edit((t) => delete t[1]!.description), system],
      // The last key the walk reaches (a tool's input_schema is required, so its own last key goes).
      ['the last key of the last tool dropped', edit((t) => deleteLastKey(t.at(-1)!.input_schema as Record<string, unknown>)), system],
      ['a key added', edit((t) => (t[1]!.cache_hint = 'x')), system],
      ['a nested value', edit((t) => (Object.values(schema(t[0]!).properties)[0]!.type = 'number')), system],
      ['an array for a string', edit((t) => (schema(t[0]!).properties.path!.type = ['string'])), system],
      ['a number for a string', edit((t) => (schema(t[1]!).required = [1 as never])), system],
      // An array's string item, the array the same length (required: ['path'] → ['pats']).
      ['an item of an array', edit((t) => (schema(t[0]!).required = ['pats'])), system],
      ['null for an object', edit((t) => ((t[1]!.input_schema as Record<string, unknown>).properties = null)), system],
      ['an object for an array', edit((t) => (schema(t[0]!).required = { 0: 'x' } as never)), system],
      ['a tool added', edit((t) => t.push({ name: 'Extra', description: 'x', input_schema: { type: 'object', properties: {} } })), system],
      ['a tool dropped', edit((t) => t.pop()), system],
      ['two tools swapped', edit((t) => t.splice(0, 2, t[1]!, t[0]!)), system],
      ['the system text', tools, [{ type: 'text', text: `${SYSTEM}.` }]],
      ['a system block added', tools, [...system, { type: 'text', text: 'More.' }]],
    ];
    const requests = history(1, 4);
    for (const [what, changedTools, changedSystem] of changes) {
      const store = new MemoryConversationStore();
      const send = (i: number, t: unknown, s: unknown) =>
        prepare(
          { ...base, system: JSON.parse(JSON.stringify(s)), tools: JSON.parse(JSON.stringify(t)), messages: requests[i]! },
          { conversationId: what, store, now: i },
        );
      for (let i = 0; i < 2; i++) expect((await send(i, tools, system)).plan.resync, what).toBeUndefined();
      const { params, plan } = await send(2, changedTools, changedSystem);
      expect(plan.resync?.reason, what).toMatch(/^(tools|system)_changed$/);
      const fresh = await prepare(
        { ...base, system: changedSystem as never, tools: changedTools as never, messages: requests[2]! },
        { conversationId: 'fresh', store: new MemoryConversationStore(), now: 2 },
      );
      expect(JSON.stringify({ s: params.system, t: params.tools }), what).toBe(JSON.stringify({ s: fresh.params.system, t: fresh.params.tools }));
      // Sent again, rebuilt: no change.
      expect((await send(3, changedTools, changedSystem)).plan.resync, what).toBeUndefined();
    }
    // Another key order of the same tools: the same request to the API, no change; the bytes first sent stay.
    const store = new MemoryConversationStore();
    const first = await prepare(
      { ...base, system, tools: structuredClone(tools) as never, messages: requests[0]! },
      { conversationId: 'order', store, now: 1 },
    );
    const reordered = tools.map((t) => Object.fromEntries(Object.entries(t).reverse()));
    for (const i of [1, 2]) {
      const { params, plan } = await prepare(
        { ...base, system, tools: structuredClone(reordered) as never, messages: requests[i]! },
        { conversationId: 'order', store, now: 1 + i },
      );
      expect(plan.resync).toBeUndefined();
      expect(JSON.stringify(params.tools)).toBe(JSON.stringify(first.params.tools));
    }
  });

  it('keeps the timeline when only the system prompt changes, and names it', async () => {
    const store = new MemoryConversationStore();
    const requests = history(1, 2);
    await prepare({ ...base, messages: requests[0]! }, { conversationId: 'sys', store, now: 1 });
    const { plan } = await prepare({ ...base, system: `${SYSTEM} Be brief.`, messages: requests[1]! }, { conversationId: 'sys', store, now: 2 });
    expect(plan.resync?.reason).toBe('system_changed');
    expect(plan.cause).toBe('system_changed');
    expect(plan.appended).toBe(2);
  });

  it('refuses malformed blocks and tools with a typed error naming the field, never a TypeError', async () => {
    // Found by review8 (malformed params through prepare): these were TypeErrors from inside the edits
    // ("block.text.trim is not a function", "c is not iterable", "Cannot read properties of null (reading 'name')").
    const opts = { conversationId: 'blocks', store: new MemoryConversationStore() };
    const call = (input: unknown, content: unknown): MessageParam[] => [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input } as never] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content } as never] },
    ];
    const refused: [MessageParam[] | undefined, unknown, RegExp][] = [
      [[{ role: 'user', content: [{ type: 'text', text: 5 } as never] }], undefined, /messages\[0\]\.content\[0\]\.text/],
      [call({}, null), undefined, /messages\[2\]\.content\[0\]\.content: expected a string or an array/],
      [call({}, 5), undefined, /messages\[2\]\.content\[0\]\.content/],
      [call({}, [null]), undefined, /messages\[2\]\.content\[0\]\.content\[0\]/],
      [call({}, [{ type: 'text', text: {} }]), undefined, /messages\[2\]\.content\[0\]\.content\[0\]\.text/],
      [call('path', 'r'), undefined, /messages\[1\]\.content\[0\]\.input: expected an object/],
      // OpenAI Chat Completions messages (review door16): named as such, with where to go instead.
      [
        [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } }] } as never,
        ],
        undefined,
        /messages\[1\]\.tool_calls: not a Messages API field: this is an OpenAI Chat Completions message.*cachepoint\/ai-sdk.*toOpenAIChat/,
      ],
      [
        [{ role: 'user', content: 'go' }, { role: 'tool', tool_call_id: 'c1', content: 'r' } as never],
        undefined,
        /messages\[1\]\.role: expected "user" or "assistant", got "tool": this is an OpenAI Chat Completions message/,
      ],
      [
        [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, tool_calls: [] } as never,
          { role: 'tool', tool_call_id: 'c1', content: 'r' } as never,
          { role: 'user', content: 'next' },
        ],
        undefined,
        /messages\[1\]\.tool_calls: not a Messages API field: this is an OpenAI Chat Completions message/,
      ],
      [[{ role: 'developer', content: 'be brief' } as never], undefined, /messages\[0\]\.role.*"developer": this is an OpenAI Chat/],
      [undefined, [null], /tools\[0\]/],
      [undefined, [{ description: 'no name', input_schema: { type: 'object' } }], /tools\[0\].*name/],
    ];
    for (const [messages, tools, field] of refused) {
      const params = { ...base, messages: messages ?? [{ role: 'user', content: 'hi' }], ...(tools ? { tools: tools as never } : {}) };
      const err = await prepare(params as never, opts).catch((e: unknown) => e);
      expect(err, String(field)).toBeInstanceOf(InvalidParamsError);
      expect((err as Error).message).toMatch(field);
    }
    // A malformed tail, also where the previous request had a tail of the same length.
    await prepare({ ...base, messages: [{ role: 'user', content: 'hi' }] } as never, { ...opts, conversationId: 'tail', tail: 'live' });
    for (const tail of [5, [null], [{ type: 'text', text: 7 }]]) {
      const err = await prepare({ ...base, messages: [{ role: 'user', content: 'hi' }] } as never, {
        ...opts,
        conversationId: 'tail',
        tail: tail as never,
      }).catch((e: unknown) => e);
      expect(err, JSON.stringify(tail)).toBeInstanceOf(TimelineError);
      expect((err as Error).message).toMatch(/^tail/);
    }
    expect(await opts.store.load('blocks')).toBeUndefined();
    // Well-formed ones still go through: an absent tool_result content, image blocks inside it.
    await expect(prepare({ ...base, messages: call({ path: 'a' }, undefined) } as never, opts)).resolves.toBeDefined();
  });

  it("returns every field of the render's plan in its plan, the optional ones included", async () => {
    const store = new MemoryConversationStore();
    const requests = history(2, 3);
    const seen = new Set<string>();
    let now = 1_000;
    const check = async (messages: MessageParam[]) => {
      const { plan, rendered } = await prepare({ ...base, messages }, { conversationId: 'fields', store, now: (now += 1000) });
      for (const [key, value] of Object.entries(rendered.plan)) {
        expect((plan as unknown as Record<string, unknown>)[key], key).toBe(value);
        seen.add(key);
      }
      expect(plan.conversationId).toBe('fields');
      expect(plan.cachePoints).toBe(rendered.cachePoints);
    };
    for (const messages of requests) await check(messages);
    // An edited message near the end: the first change is inside the previous request's prefix.
    const last = requests.at(-1)!;
    await check([...last.slice(0, -2), { role: 'user', content: [{ type: 'text', text: 'edited' }] }]);
    expect([...seen].sort()).toEqual(expect.arrayContaining(['cause', 'firstChange', 'firstChangePath', 'read', 'writes']));
  });

  it('refuses a malformed tool or system block in a later request whose envelope changed, not only in the first', async () => {
    // Tools and system blocks are checked one by one when the envelope is built from them (the first request, or
    // one whose system or tools differ from those sent before); re-sent ones are not read again.
    const store = new MemoryConversationStore();
    const opts = { conversationId: 'later', store };
    const tools = [...TOOLS];
    const system = [{ type: 'text' as const, text: SYSTEM }];
    const messages: MessageParam[] = [{ role: 'user', content: 'hi' }];
    await prepare({ ...base, system, tools, messages }, opts);
    // Re-sent as they were: fine (the same objects, and new objects with the same content).
    await expect(prepare({ ...base, system, tools, messages }, opts)).resolves.toBeDefined();
    await expect(prepare({ ...base, system: structuredClone(system), tools: structuredClone(tools), messages }, opts)).resolves.toBeDefined();
    const refused: [object, RegExp][] = [
      [{ tools: [...tools, null] }, /^tools\[\d+\]/],
      [{ tools: [...tools, { description: 'no name', input_schema: { type: 'object' } }] }, /^tools\[\d+\].*name/],
      [{ tools: [{ ...tools[0]!, name: '' }, ...tools.slice(1)] }, /^tools\[0\].*name/],
      [{ system: [...system, { type: 'image', text: 'x' }] }, /^system\[1\]: expected a text block/],
      [{ system: [...system, { type: 'text', text: 5 }] }, /^system\[1\]/],
    ];
    const revision = (await store.load('later'))!.revision;
    for (const [change, field] of refused) {
      const err = await prepare({ ...base, system, tools, messages, ...change } as never, opts).catch((e: unknown) => e);
      expect(err, String(field)).toBeInstanceOf(InvalidParamsError);
      expect((err as Error).message).toMatch(field);
    }
    expect((await store.load('later'))!.revision).toBe(revision);
  });

  it('refuses malformed params with a typed error naming the field', async () => {
    const store = new MemoryConversationStore();
    const opts = { conversationId: 'bad', store };
    await expect(prepare({ ...base, messages: [] }, opts)).rejects.toThrow(InvalidParamsError);
    await expect(prepare({ ...base, messages: [{ role: 'assistant', content: 'hi' }] }, opts)).rejects.toThrow(/messages\[0\]/);
    const unanswered: MessageParam[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} }] },
      { role: 'user', content: 'and?' },
    ];
    await expect(prepare({ ...base, messages: unanswered }, opts)).rejects.toThrow(/messages\[2\].*toolu_x/);
    await expect(prepare({ ...base, messages: [{ role: 'user', content: 7 as never }] }, opts)).rejects.toThrow(/messages\[0\]\.content/);
    await expect(prepare({ ...base, model: 'claude-nonexistent-9', messages: [{ role: 'user', content: 'hi' }] }, opts)).rejects.toThrow(UnknownModelError);
    await expect(prepare({ ...base, messages: [{ role: 'user', content: 'hi' }] }, { conversationId: '' })).rejects.toThrow(/conversationId/);
    // Nothing was stored by the failures.
    expect(await store.load('bad')).toBeUndefined();
    // A message that is not an object where the conversation already holds one, or a system-role message after
    // the start (first sent or replacing a mapped one): typed errors naming the index.
    const first: MessageParam[] = [{ role: 'user', content: 'hi' }];
    await prepare({ ...base, messages: first }, { conversationId: 'held', store });
    const held = { conversationId: 'held', store };
    await expect(prepare({ ...base, messages: [null as never, { role: 'assistant', content: 'a' }, { role: 'user', content: 'b' }] }, held)).rejects.toThrow(
      /messages\[0\]/,
    );
    // Not an object right after the messages already held (where the previous response is stamped): typed too.
    await expect(prepare({ ...base, messages: [...first, null as never, { role: 'user', content: 'b' }] }, held)).rejects.toThrow(InvalidParamsError);
    await expect(prepare({ ...base, messages: [...first, null as never, { role: 'user', content: 'b' }] }, held)).rejects.toThrow(/messages\[1\]/);
    const system = { role: 'system', content: 'late' } as unknown as MessageParam;
    await expect(prepare({ ...base, messages: [...first, { role: 'assistant', content: 'a' }, system, { role: 'user', content: 'b' }] }, held)).rejects.toThrow(
      /messages\[2\]\.role.*system-role/,
    );
    await expect(prepare({ ...base, messages: [system, { role: 'user', content: 'b' }] }, held)).resolves.toBeDefined(); // leading: taken into system
    expect((await store.load('held'))!.revision).toBe(2);
  });

  it('two writers of one conversation: one wins, the other gets a typed conflict and can retry', async () => {
    const inner = new MemoryConversationStore();
    // Both load before either saves.
    let gate!: () => void;
    const loaded = new Promise<void>((r) => (gate = r));
    let loads = 0;
    const store: ConversationStore = {
      load: async (id) => {
        const r = await inner.load(id);
        if (++loads === 2) gate();
        await loaded;
        return r;
      },
      save: (rec, exp) => inner.save(rec, exp),
      delete: (id) => inner.delete(id),
    };
    const [m] = history(1, 1);
    const results = await Promise.allSettled([
      prepare({ ...base, messages: m! }, { conversationId: 'w', store, now: 1 }),
      prepare({ ...base, messages: m! }, { conversationId: 'w', store, now: 1 }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toBeInstanceOf(ConversationConflictError);
    expect((await inner.load('w'))!.revision).toBe(1);
    const retried = await prepare({ ...base, messages: m! }, { conversationId: 'w', store: inner, now: 2 });
    expect(retried.plan.revision).toBe(2);
  });

  it('a store that is down: renders from the messages, flags it, and never throws unless asked', async () => {
    const down: ConversationStore = {
      load: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      },
      save: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      },
      delete: async () => {},
    };
    const [m] = history(1, 1);
    const { params, plan } = await prepare({ ...base, messages: m! }, { conversationId: 'd', store: down, now: 1 });
    expect(plan.resync?.reason).toBe('store_unavailable');
    expect(params.messages).toHaveLength(1);
    await expect(prepare({ ...base, messages: m! }, { conversationId: 'd', store: down, onStoreError: 'throw' })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('plan.revision is null when nothing was saved (store down at load or at save), and the stored count goes on after', async () => {
    // Was 1 on every store_unavailable request (and N+1 on an unsaved one): a revision no store held, read in logs as a
    // conversation started anew.
    const { inner, store, fail } = failingStore('connect ECONNREFUSED 127.0.0.1:6379');
    const [m1, m2] = history(2, 1);
    const ref = { conversationId: 'rev', store };
    expect((await prepare({ ...base, messages: m1! }, { ...ref, now: 1 })).plan.revision).toBe(1);
    fail('load');
    const down = (await prepare({ ...base, messages: m2! }, { ...ref, now: 2 })).plan;
    // This process prepared the conversation before: rendered from its copy (local-copy.ts), nothing saved.
    expect(down.localState?.reason).toBe('store_unavailable');
    expect(down.resync).toBeUndefined();
    expect(down.unsaved).toMatch(/ECONNREFUSED/);
    expect(down.revision).toBeNull();
    fail('save');
    const unsaved = (await prepare({ ...base, messages: m2! }, { ...ref, now: 3 })).plan;
    expect(unsaved.unsaved).toMatch(/ECONNREFUSED/);
    expect(unsaved.revision).toBeNull();
    fail(undefined);
    const back = (await prepare({ ...base, messages: m2! }, { ...ref, now: 4 })).plan;
    expect(back.revision).toBe(2);
    expect(back.localState?.reason).toBe('unsaved');
    expect((await inner.load('rev'))!.revision).toBe(2);
    // Without the copy (another store object: another worker), the messages alone, as before.
    fail('load');
    const elsewhere = (await prepare({ ...base, messages: m2! }, { conversationId: 'rev', store: { ...store }, now: 5 })).plan;
    expect(elsewhere.resync?.reason).toBe('store_unavailable');
    expect(elsewhere.localState).toBeUndefined();
    expect(elsewhere.revision).toBeNull();
  });

  it('recordUsage while the store is down: resolves false (nothing recorded), never throws into the loop', async () => {
    // Found by review8 (the packed package, a README loop on Redis, Redis stopped mid-session): prepare fell back,
    // then recordUsage threw ConversationStoreError out of the loop.
    const { store, fail } = failingStore('The client is offline');
    const [m] = history(1, 1);
    const usage = { input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 5 };
    await prepare({ ...base, messages: m! }, { conversationId: 'o', store, now: 1 });
    fail('load');
    await expect(recordUsage({ usage }, { conversationId: 'o', store, now: 2 })).resolves.toBe(false);
    fail('save');
    await expect(recordUsage({ usage }, { conversationId: 'o', store, now: 2 })).resolves.toBe(false);
    fail(undefined);
    await expect(recordUsage({ usage }, { conversationId: 'o', store, now: 3 })).resolves.toBe(true);
    // A damaged stored state is still a typed error.
    const damaged: ConversationStore = {
      ...store,
      load: async (id) => Promise.reject(new ConversationStateError(id, 'newer_version', 'stored state has version 9')),
    };
    await expect(recordUsage({ usage }, { conversationId: 'o', store: damaged })).rejects.toThrow(ConversationStateError);
  });

  it('a store that is not a store is a typed error, not a silent fallback', async () => {
    // Found by review8: prepare with store: {} (or an un-awaited createRedisConversationStore promise) fell back
    // silently (store_unavailable) on every request, and recordUsage resolved false.
    const [m] = history(1, 1);
    for (const store of [{}, Promise.resolve(new MemoryConversationStore()), 'redis://127.0.0.1:6379']) {
      await expect(prepare({ ...base, messages: m! }, { conversationId: 'n', store: store as never })).rejects.toThrow(
        /options\.store: expected a conversation store/,
      );
      await expect(recordUsage({ usage: { input_tokens: 1, output_tokens: 1 } }, { conversationId: 'n', store: store as never })).rejects.toThrow(
        InvalidParamsError,
      );
    }
    await expect(prepare({ ...base, messages: m! }, { conversationId: 'n', store: Promise.resolve({}) as never })).rejects.toThrow(
      /await createRedisConversationStore/,
    );
  });

  it('a corrupt or newer stored state is a typed error, never a silent reset', async () => {
    const store: ConversationStore = {
      load: async (id) => {
        throw new ConversationStateError(id, 'newer_version', 'stored state has version 9');
      },
      save: async () => {},
      delete: async () => {},
    };
    const [m] = history(1, 1);
    await expect(prepare({ ...base, messages: m! }, { conversationId: 'v', store })).rejects.toThrow(ConversationStateError);
  });

  it('usage fed back gives Session-style stats and calibration', async () => {
    const store = new MemoryConversationStore();
    const ref = { conversationId: 'u', store };
    for (const m of history(1, 2)) {
      const { plan } = await prepare({ ...base, messages: m }, { ...ref, now: 1 });
      const usage = {
        input_tokens: plan.usage.input_tokens,
        cache_read_input_tokens: plan.usage.cache_read_input_tokens,
        cache_creation_input_tokens: plan.usage.cache_creation_input_tokens,
        output_tokens: 50,
      };
      expect(await recordUsage({ id: `msg_${plan.revision}`, usage }, { ...ref, now: 2 })).toBe(true);
    }
    expect(await recordUsage({ input_tokens: 1 }, ref)).toBe(false); // nothing pending
    const stats = (await conversationStats(ref))!;
    expect(stats.totals.requests).toBe(3);
    expect(stats.totals.cacheRead).toBeGreaterThan(0);
    expect(stats.totals.cost).toBeLessThan(stats.totals.uncachedCost);
    expect(stats.pendingUsage).toBe(false);
    expect(await formatConversationStats(ref)).toMatch(/hit ratio/);
    const record = (await store.load('u')) as ConversationRecord;
    expect(record.lastMessageId).toBe('msg_5');
  });
});

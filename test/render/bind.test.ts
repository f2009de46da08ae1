/**
 * Preserved thinking (models that bind thinking to its prefix): the real SDK
 * client against the fake server, which signs every thinking block with a
 * digest of its prefix and refuses (400) a request where one comes back with a
 * changed prefix or with a thinking block left out before it. Session and
 * prepare loops with a volatile tail, conservative and economy, an agent's
 * hide, cold prunes and a compaction: never a 400, and the thinking that could
 * be kept is kept (the plan names what was left out and why).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { resolveProfile } from '../../src/models/profiles.js';
import type { Decision, RenderOptions } from '../../src/render/types.js';
import { Session } from '../../src/session/session.js';
import { simulateAll } from '../../src/sim/simulator.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { bindResponse, checkBinding, THINKING_BINDING_BETA } from '../../src/testing/fake-server-binding.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { bindingScript, thinkingOf } from '../helpers/binding.js';
import { INSTRUCTIONS, newSession, TOOLS, text, toolRound } from '../helpers/build.js';

const MODEL = 'claude-sonnet-5-5';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Sent {
  readonly status: number;
  readonly error?: string;
  /** The thinking blocks the request carried, by their signature (data) without the binding digest. */
  readonly thinking: readonly string[];
}

function sent(s: FakeMessagesServer): Sent[] {
  return s.requests
    .filter((r) => r.path === '/v1/messages')
    .map((r) => ({ status: r.status, ...(r.error ? { error: r.error.message } : {}), thinking: thinkingOf(r.body) }));
}

/** What each response's thinking was (signature or data), in order. */
function produced(s: FakeMessagesServer): string[] {
  const out: string[] = [];
  for (const r of s.requests) {
    const m = r.response as Anthropic.Message | undefined;
    if (r.path !== '/v1/messages' || !m || !('content' in m)) continue;
    for (const b of m.content) {
      if (b.type === 'thinking') out.push(b.signature.split('~')[0]!);
      else if (b.type === 'redacted_thinking') out.push(b.data.split('~')[0]!);
    }
  }
  return out;
}

interface Run {
  readonly session: Session;
  readonly decisions: Decision[][];
}

/** A Session loop: `turns` turns of `rounds` tool rounds, a new tail before every request, `between` run after each turn. */
async function runSession(
  turns: number,
  rounds: number,
  render: Omit<RenderOptions, 'now'>,
  hooks: { clock?: { now: number }; afterRound?: (session: Session, turn: number, round: number) => void } = {},
): Promise<Run> {
  server = await startFakeServer({ script: bindingScript(turns, rounds) });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  const clock = hooks.clock ?? { now: 1_000_000 };
  const session = new Session({
    model: MODEL,
    instructions: INSTRUCTIONS,
    tools: TOOLS,
    render,
    now: () => clock.now,
    handlers: { Read: ((args: { path: string }) => text(args.path, 1200)) as never },
  });
  const decisions: Decision[][] = [];
  let step = 0;
  for (let t = 1; t <= turns; t++) {
    session.startTurn(`Task ${t}: tidy up the modules.`);
    for (let r = 1; ; r++) {
      step++;
      session.setTail(`live view ${step}: budget ${1000 - step}`);
      const message = await session.step(client, { max_tokens: 1024 });
      decisions.push([...(session.rendered?.decisions ?? [])]);
      clock.now += 1000;
      if (message.stop_reason !== 'tool_use') break;
      hooks.afterRound?.(session, t, r);
    }
  }
  return { session, decisions };
}

const bindingDrops = (ds: readonly Decision[]) => ds.filter((d) => (d.type === 'prune' || d.type === 'hide') && d.reason === 'binding');

describe('preserved thinking: the fake server checks thinking prefixes', () => {
  it('refuses a thinking block whose prefix changed, and one left out before a kept one; drop_block drops them', () => {
    const system = [{ type: 'text' as const, text: 'You are helpful.' }];
    const req = (messages: Anthropic.MessageParam[], extra: object = {}, sys: Anthropic.TextBlockParam[] = system) =>
      ({ model: MODEL, max_tokens: 10, system: sys, messages, ...extra }) as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const answer = (params: Anthropic.MessageCreateParamsNonStreaming, sig: string) =>
      bindResponse(
        params as never,
        {
          id: 'm',
          type: 'message',
          role: 'assistant',
          model: MODEL,
          content: [
            { type: 'thinking', thinking: 'hmm', signature: sig },
            { type: 'text', text: 'ok', citations: null },
          ],
        } as unknown as Anthropic.Message,
      ).content as Anthropic.ContentBlockParam[];
    const m1: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello' }];
    const a1 = answer(req(m1), 's1');
    const m2: Anthropic.MessageParam[] = [...m1, { role: 'assistant', content: a1 }, { role: 'user', content: 'More' }];
    const a2 = answer(req(m2), 's2');
    const m3: Anthropic.MessageParam[] = [...m2, { role: 'assistant', content: a2 }, { role: 'user', content: 'Again' }];
    expect(checkBinding(req(m3) as never, undefined)).toEqual([]);
    // Cache markers do not count.
    const marked: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hello', cache_control: { type: 'ephemeral' } }] },
      ...m3.slice(1),
    ];
    expect(checkBinding(req(marked) as never, undefined)).toEqual([]);
    // A changed system prompt: the first block is refused, with the API's text.
    expect(() => checkBinding(req(m3, {}, [{ type: 'text', text: 'You are terse.' }]) as never, undefined)).toThrow(
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.',
    );
    // The first thinking left out, the second kept: refused (its prefix lost a block).
    const gap: Anthropic.MessageParam[] = [...m1, { role: 'assistant', content: a1.slice(1) }, ...m3.slice(2)];
    expect(() => checkBinding(req(gap) as never, undefined)).toThrow('messages.3.content.0: Invalid `signature`');
    // drop_block needs the beta header; with it, the invalid blocks are listed instead.
    const drop = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } };
    expect(() => checkBinding(req(gap, drop) as never, undefined)).toThrow('thinking.block_binding: Extra inputs are not permitted');
    // Without the header, the refusal says the setting needs it.
    expect(() => checkBinding(req(gap) as never, undefined)).toThrow(`That setting requires the \`${THINKING_BINDING_BETA}\` value`);
    expect(() => checkBinding(req(gap) as never, THINKING_BINDING_BETA)).not.toThrow('That setting requires');
    expect(checkBinding(req(gap, drop) as never, THINKING_BINDING_BETA)).toEqual([
      { type: 'thinking_dropped', path: 'messages.3.content.0', reason: 'prefix_binding_mismatch' },
    ]);
  });

  it('a Session loop with a volatile tail: never refused, every thinking block kept (conservative)', async () => {
    const { decisions } = await runSession(3, 3, { policy: 'conservative' });
    const requests = sent(server!);
    expect(requests.map((r) => r.status)).toEqual(requests.map(() => 200));
    // Each request carries every thinking block produced before it (the tail of each request stays where it was sent).
    const all = produced(server!);
    requests.forEach((r, i) => expect(r.thinking).toEqual(all.slice(0, i)));
    expect(decisions.flatMap(bindingDrops)).toEqual([]);
  });

  it('economy on a binding model: never refused, no earlier turn thinking left out', async () => {
    const { decisions } = await runSession(4, 3, { policy: 'economy' });
    const requests = sent(server!);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const all = produced(server!);
    requests.forEach((r, i) => expect(r.thinking).toEqual(all.slice(0, i)));
    expect(decisions.flatMap(bindingDrops)).toEqual([]);
  });

  it('cold prunes hold payloads before kept thinking, and the plan says why', async () => {
    const clock = { now: 1_000_000 };
    const { decisions } = await runSession(
      3,
      3,
      { policy: 'conservative', prune: { keepTurns: 1, minChars: 100 } },
      {
        clock,
        // An hour between rounds: the cache is cold at every request, so every old payload is a prune candidate.
        afterRound: () => {
          clock.now += 3_600_000;
        },
      },
    );
    const requests = sent(server!);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const all = produced(server!);
    requests.forEach((r, i) => expect(r.thinking).toEqual(all.slice(0, i)));
    const defers = decisions.flat().filter((d) => d.type === 'defer' && d.why.startsWith('preserved thinking'));
    expect(defers.length).toBeGreaterThan(0);
  });

  it("an agent's hide leaves out the thinking after it (all of it, no gap) and keeps the rest", async () => {
    let hiddenAt = -1;
    let step = 0;
    const { decisions } = await runSession(
      2,
      4,
      { policy: 'conservative' },
      {
        afterRound: (session, t, r) => {
          step++;
          if (t === 2 && r === 3) {
            // Round 1's result of turn 2: rounds 2 and 3 of turn 2 have thinking after it.
            expect(session.hide('turns/2/rounds/1/results/toolu_2_1', { force: true }).decision.type).toBe('hide');
            hiddenAt = step;
          }
        },
      },
    );
    const requests = sent(server!);
    expect(requests.map((r) => r.status)).toEqual(requests.map(() => 200));
    // The request after the hide: requests are 1-based steps; step counts tool rounds before it (turn 1 had 4 + answer).
    const at = decisions.findIndex((ds) => bindingDrops(ds).length > 0);
    expect(at).toBeGreaterThan(0);
    const drops = bindingDrops(decisions[at]!);
    expect(drops.map((d) => d.path)).toEqual(['turns/2/rounds/2/response/0', 'turns/2/rounds/3/response/0']);
    expect(drops.every((d) => d.type === 'prune' && d.binding?.cause === 'hidden' && d.binding.changedAt === 'turns/2/rounds/1/results/toolu_2_1')).toBe(true);
    const all = produced(server!);
    // That request and every later one: the two dropped blocks are missing, everything else is there.
    const dropped = new Set(['sig-2-2', 'sig-2-3']);
    for (let i = at; i < requests.length; i++) expect(requests[i]!.thinking).toEqual(all.slice(0, i).filter((s) => !dropped.has(s)));
    expect(hiddenAt).toBeGreaterThan(0);
  });

  it.each(['sync', 'async'] as const)('a compaction (%s summarizer) leaves out the thinking after the summary and says so', async (kind) => {
    const base = resolveProfile(MODEL);
    const summarizer = { name: 'async-test', summarize: async () => ({ text: 'Summary: the modules were read.', by: 'async-test' }) };
    const { decisions } = await runSession(4, 3, {
      policy: 'conservative',
      profile: { ...base, contextWindow: 6000 },
      compact: { threshold: 0.6, target: 0.3 },
      ...(kind === 'async' ? { summarizer } : {}),
    });
    const requests = sent(server!);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const compactions = decisions.flat().filter((d) => d.type === 'compact');
    expect(compactions.length).toBeGreaterThan(0);
    // The compaction waits for a turn boundary (bind-compaction.test.ts): here it then covers every earlier turn,
    // so no thinking is left after the summary to leave out; whatever is left out is for the compaction.
    const drops = decisions.flatMap(bindingDrops);
    expect(drops.every((d) => d.type === 'prune' && d.binding?.cause === 'compaction')).toBe(true);
    // Thinking produced after the compaction is kept in later requests.
    const last = requests.at(-1)!;
    expect(last.thinking.length).toBeGreaterThan(0);
  });

  it.each(['memory', 'file'] as const)('a prepare loop with a volatile tail (%s store): never refused, every thinking block kept', async (kind) => {
    server = await startFakeServer({ script: bindingScript(2, 3) });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
    // The file store exports and imports the state on every request: the sent tail must survive that.
    const store = kind === 'memory' ? new MemoryConversationStore() : new FileConversationStore({ dir: mkdtempSync(join(tmpdir(), 'cachepoint-bind-')) });
    const messages: Anthropic.MessageParam[] = [];
    let now = 1_000_000;
    let step = 0;
    for (let t = 1; t <= 2; t++) {
      messages.push({ role: 'user', content: `Task ${t}: tidy up.` });
      for (;;) {
        step++;
        const { params, headers } = await prepare(
          { model: MODEL, max_tokens: 1024, system: INSTRUCTIONS.map((i) => ({ type: 'text' as const, text: i })), tools: TOOLS, messages },
          { conversationId: 'bind-1', store, now: (now += 1000), tail: `live view ${step}` },
        );
        const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers });
        messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
        if (message.stop_reason !== 'tool_use') break;
        const uses = message.content.filter((b) => b.type === 'tool_use');
        messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: text(u.id, 800) })) });
      }
    }
    const requests = sent(server);
    expect(requests.map((r) => r.status)).toEqual(requests.map(() => 200));
    const all = produced(server);
    requests.forEach((r, i) => expect(r.thinking).toEqual(all.slice(0, i)));
  });

  it('drop_block opted into: the param goes through and the beta header is added (Session and prepare)', async () => {
    const binding = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } } as never;
    server = await startFakeServer({ script: bindingScript(1, 2) });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
    const session = new Session({ model: MODEL, instructions: INSTRUCTIONS, tools: TOOLS, request: binding, handlers: { Read: (() => 'x') as never } });
    session.startTurn('Go.');
    for (;;) {
      session.setTail('live view');
      if ((await session.step(client, { max_tokens: 256 })).stop_reason !== 'tool_use') break;
    }
    const requests = server.requests.filter((r) => r.path === '/v1/messages');
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of requests) {
      expect(r.headers['anthropic-beta']).toBe(THINKING_BINDING_BETA);
      expect((r.body as { thinking: unknown }).thinking).toEqual({ type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } });
    }
    const { headers } = await prepare(
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], ...(binding as object) },
      { conversationId: 'bind-headers', store: new MemoryConversationStore(), now: 1 },
    );
    expect(headers).toEqual({ 'anthropic-beta': THINKING_BINDING_BETA });
    // Without the opt-in: no header.
    const plain = await prepare(
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] },
      { conversationId: 'bind-plain', store: new MemoryConversationStore(), now: 1 },
    );
    expect(plain.headers).toEqual({});
  });

  it('a block rebuilt with the same content (another token cache) is no change: no thinking left out', () => {
    let state = startTurn(newSession(MODEL), 'Fix it.');
    let r = render(setTail(toolRound(state), 'live 1'), { now: 1, tokens: new BlockTokenCache() });
    state = toolRound(r.state);
    r = render(setTail(state, 'live 2'), { now: 2, tokens: new BlockTokenCache() });
    expect(r.decisions.filter((d) => d.type === 'prune' && d.reason === 'binding')).toEqual([]);
    const sentThinking = toAnthropic(r).messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'thinking')));
    expect(sentThinking).toHaveLength(2);
    // The first tail stays where it was sent; the second is last.
    const texts = toAnthropic(r).messages.flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])),
    );
    expect(texts.filter((t) => t.startsWith('live'))).toEqual(['live 1', 'live 2']);
  });

  it('the simulator refuses a thinking block sent back with a changed prefix (unless drop_block)', () => {
    const system = [{ type: 'text' as const, text: 'You are helpful.' }];
    const m1: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello' }];
    const thinking = { type: 'thinking' as const, thinking: 'hmm', signature: 'sig-a' };
    const m2: Anthropic.MessageParam[] = [...m1, { role: 'assistant', content: [thinking, { type: 'text', text: 'Hi' }] }, { role: 'user', content: 'More' }];
    const req = (messages: Anthropic.MessageParam[], sys = system, extra: object = {}) =>
      ({ at: 0, params: { model: MODEL, max_tokens: 10, system: sys, messages, ...extra } }) as never;
    const ok = simulateAll([req(m1), req(m2)]);
    expect(ok.map((r) => r.rejected)).toEqual([null, null]);
    const changed = simulateAll([req(m1), req(m2), req(m2, [{ type: 'text', text: 'You are terse.' }])]);
    expect(changed[2]!.rejected?.message).toContain(
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.',
    );
    const drop = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } };
    expect(simulateAll([req(m1), req(m2), req(m2, [{ type: 'text', text: 'You are terse.' }], drop)])[2]!.rejected).toBeNull();
    // Models that do not bind thinking: no such check.
    const plain = (messages: Anthropic.MessageParam[], sys = system) =>
      ({ at: 0, params: { model: 'claude-sonnet-4-6', max_tokens: 10, system: sys, messages } }) as never;
    expect(simulateAll([plain(m1), plain(m2), plain(m2, [{ type: 'text', text: 'You are terse.' }])]).map((r) => r.rejected)).toEqual([null, null, null]);
  });
});

/**
 * The drop-in door under the property suite's random sessions: `prepare`
 * over the message arrays a plain loop would send, next to the Session path
 * (the same timeline edits and render, as timelines.ts plays them).
 *
 * The loop keeps a plain `messages` array and, per script, may:
 * - re-send new message objects every request (a loop that rebuilds its array);
 * - replace an old message with an equal copy (no resync expected);
 * - replace an old message with an edited one, or push a block onto an old
 *   message's content in place (resync `history_edited` at that index);
 * - retry a request after dropping the response it got (resync `history_truncated`);
 * - cut its history back to an earlier user message (resync `history_truncated`);
 * - change its system prompt (resync `system_changed`, timeline kept);
 * - send a prefill (a trailing assistant message) instead of a request;
 * - ask for hides through `options.hide` (as the script's hides);
 * - switch conversation stores (memory → file → Redis → memory, Redis when the
 *   run has one) through an export/import round trip;
 * - feed every response's usage back with `recordUsage` (the usage the plan
 *   predicted: the calibration must stay exactly 1, so the plan's usage, prefill
 *   included, adds up to the estimate recordUsage compares; the Session path
 *   stamps each response at the time its usage was recorded, as prepare does).
 *
 * Checks, every request: no throw; our validator accepts it; ≤ 4 markers; no
 * marker on the tail or the prefill; while the loop only appended (fresh
 * objects and equal copies included), the same bytes as the Session path (the
 * prefill aside); an edited, cut or retried history resyncs with its reason
 * and never yields a wrong request (markers stripped, the same messages as a
 * fresh conversation renders from the same array, when neither has pruned,
 * hidden or compacted anything); every removed payload is recalled
 * byte-identical through `recallFromConversation`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlockParam, MessageParam, TextBlockParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import fc from 'fast-check';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import {
  conversationStats,
  prepare,
  recallFromConversation,
  recordUsage,
  type HideRequest,
  type Prepared,
  type PrepareParams,
} from '../../src/conversation/prepare.js';
import { exportState, importState } from '../../src/conversation/state.js';
import type { ConversationStore } from '../../src/conversation/types.js';
import { customProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import type { RenderOptions } from '../../src/render/types.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { appendResponse, appendToolResults, createTimeline, setEnvelope, setTail, startTurn } from '../../src/timeline/edit.js';
import { turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';
import { checkCurrentThinking, sessionScript, type SessionScript } from './timelines.js';

// TYPES

type MutationKind = 'copy' | 'edit' | 'push' | 'retry' | 'cut' | 'system' | 'prefill' | 'switch';

interface Mutation {
  /** Before which request (modulo the number of requests). */
  readonly at: number;
  readonly kind: MutationKind;
  /** Which message (modulo the candidates). */
  readonly pick: number;
}

/** A random session and how the loop around it behaves. */
export interface DoorScript {
  readonly session: SessionScript;
  /** Re-send every message as a new object each request. */
  readonly fresh: boolean;
  /** `redis` runs on Redis when the run has it (see {@link DoorEnv}), else in memory. */
  readonly store: StoreKind;
  /** Feed every response's usage back with `recordUsage`. */
  readonly usage: boolean;
  readonly mutations: readonly Mutation[];
}

type StoreKind = 'memory' | 'file' | 'redis';

export const doorScript: fc.Arbitrary<DoorScript> = fc.record({
  session: sessionScript,
  fresh: fc.boolean(),
  store: fc.constantFrom<StoreKind>('memory', 'memory', 'file', 'redis'),
  usage: fc.boolean(),
  mutations: fc.array(
    fc.record({
      at: fc.nat(),
      kind: fc.constantFrom<MutationKind>('copy', 'edit', 'push', 'retry', 'cut', 'system', 'prefill', 'switch'),
      pick: fc.nat(),
    }),
    { maxLength: 3 },
  ),
});

/** What the door runs did, for the fuzz summary. */
export interface DoorStats {
  requests: number;
  sameBytes: number;
  resyncs: number;
  contentChecks: number;
  recalled: number;
  prefills: number;
  roundTrips: number;
  /** Requests prepared with a Redis conversation store. */
  redisRequests: number;
  /** Responses fed back with recordUsage. */
  usageRecorded: number;
  /** Requests judged for busts by the simulator after the script cut or retried (what the loop sends after a cut). */
  judgedAfterCut: number;
  /** Retries: the previous request re-sent without its last response (a cut to the request before it). */
  retries: number;
}

export function emptyDoorStats(): DoorStats {
  return {
    requests: 0,
    sameBytes: 0,
    resyncs: 0,
    contentChecks: 0,
    recalled: 0,
    prefills: 0,
    roundTrips: 0,
    redisRequests: 0,
    usageRecorded: 0,
    judgedAfterCut: 0,
    retries: 0,
  };
}

/** What a run offers the loops: a Redis conversation store (one per loop, under its own namespace), when there is one. */
export interface DoorEnv {
  readonly redis?: (namespace: string) => ConversationStore;
  /**
   * Send every request through the provider cache simulator too (counting tokens as the renderer does): it must never refuse
   * one, and must find no bust (a warm entry matching the request's prefix that no marker could reach), models that do
   * not keep thinking included (the ledger follows the API's strip rule: render/projection.ts stripBoundary).
   */
  readonly simulate?: boolean;
}

// RUNNER

const TOOLS: Tool[] = [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'Grep', description: 'Searches files.', input_schema: { type: 'object' } },
];

/** A model that still takes prefills (the profile is the script's own). */
const MODEL = 'claude-sonnet-4-5';
const charTokens = new BlockTokenCache(charCounter());
const text = (t: string): TextBlockParam => ({ type: 'text', text: t });

function markers(x: unknown): number {
  return JSON.stringify(x).split('"cache_control"').length - 1;
}

function stripped(x: unknown): string {
  return JSON.stringify(x, (k, v: unknown) => (k === 'cache_control' ? undefined : v));
}

function decided(s: TimelineState): boolean {
  return Object.keys(s.hidden).length > 0 || s.summaries.length > 0 || s.pruneNotice || s.deferred.length > 0;
}

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * Plays a script through `prepare` and the Session path side by side and
 * checks every request. Throws (with the request and what failed) on a violation.
 */
export async function runDoorScript(script: DoorScript, stats: DoorStats = emptyDoorStats(), env: DoorEnv = {}): Promise<void> {
  const s = script.session;
  const profile = customProfile(`doors-${s.window}-${s.keepsThinking}`, { contextWindow: s.window, keepsThinking: s.keepsThinking, prices: { input: 3 } });
  // prepare keeps the token factor to itself (calibration); the rest of the script's options as they are.
  const { tokenFactor: _f, ...scriptOptions } = s.options;
  const renderOptions: Omit<RenderOptions, 'now' | 'tokenFactor'> = { ...scriptOptions, profile, ...(s.tiktoken ? {} : { tokens: charTokens }) };
  const cap = s.window < 60_000 ? 2000 : Number.POSITIVE_INFINITY;
  const capped = (t: string) => (t.length > cap ? t.slice(0, cap) : t);
  const cappedInput = (i: Record<string, unknown>) => (JSON.stringify(i).length > cap ? { path: capped(String(i.path)) } : i);
  let instructions = s.instructions.map((i) => (s.window < 60_000 ? i.slice(0, 2000) : i));
  let system: TextBlockParam[] = instructions.map(text);

  const dirs: string[] = [];
  const redisStores: ConversationStore[] = [];
  const newStore = (kind: StoreKind): ConversationStore => {
    if (kind === 'redis' && env.redis) {
      const store = env.redis(`doors-${++namespaces}-${Math.random().toString(36).slice(2, 8)}`);
      redisStores.push(store);
      return store;
    }
    if (kind !== 'file') return new MemoryConversationStore();
    const dir = mkdtempSync(join(tmpdir(), 'cachepoint-doors-'));
    dirs.push(dir);
    return new FileConversationStore({ dir });
  };
  let namespaces = 0;
  let storeKind: StoreKind = script.store === 'redis' && !env.redis ? 'memory' : script.store;
  let store = newStore(storeKind);
  const id = 'doors';

  // The Session path: the same edits, stamped at the time of the request that first sends them.
  let ref: TimelineState = createTimeline({ model: MODEL, instructions, tools: TOOLS });
  let refSent = 0; // messages the reference has applied
  let diverged = false; // the loop did something the Session path has no equivalent of
  const messages: MessageParam[] = [];
  let tail: ContentBlockParam[] | undefined;
  let hides: { toolUseId: string; force: boolean }[] = [];
  let sentCount = 0; // messages the previous request sent
  const originals = new Map<string, string>();
  const recalled = new Set<string>();
  let now = 1_700_000_000_000;
  let seq = 0;
  let lastSystem: string | undefined; // the system prompt of the previous request
  let requestNo = 0;
  const totalRequests = s.turns.reduce((n, t) => n + t.rounds.length + 1, 0);
  const pending = [...script.mutations].map((m) => ({ ...m, at: m.at % totalRequests }));
  // With recordUsage: when the latest response's usage was recorded (prepare stamps that response with it), and
  // the calibration the Session path renders with (prepare's, read back: it must stay exactly 1).
  let respondedAt: number | undefined;
  let tokenFactor = 1;
  // The simulator counts tokens as the renderer estimates them: the judgement is about where the markers go, not
  // about an estimate a few tokens off near the minimum cacheable prefix (the renderer then believes an entry unwritten).
  const sim = env.simulate ? new CacheSimulator({ profile, ...(s.tiktoken ? {} : { countTokens: (b: unknown) => charTokens.tokens(b) }) }) : undefined;
  let cut = false; // the script cut or retried its history (busts are judged after that too)

  const applyRef = () => {
    const first = refSent;
    for (; refSent < messages.length; refSent++) {
      const m = messages[refSent]!;
      const blocks = (typeof m.content === 'string' ? [text(m.content)] : m.content) as ContentBlockParam[];
      // The response right after the previous request is stamped with the time its usage was recorded (as prepare does).
      if (m.role === 'assistant') ref = appendResponse(ref, blocks, refSent === first && respondedAt !== undefined ? respondedAt : now);
      else {
        const results = blocks.filter((b): b is ToolResultBlockParam => b.type === 'tool_result');
        ref =
          results.length === 0
            ? startTurn(ref, blocks, now)
            : appendToolResults(ref, results, blocks.filter((b) => b.type === 'text') as TextBlockParam[], now);
      }
    }
  };

  const outgoing = (list: readonly MessageParam[]): MessageParam[] => (script.fresh ? (structuredClone(list) as MessageParam[]) : [...list]);

  const send = async (label: string, list: readonly MessageParam[], extra: { hide?: HideRequest[]; expectResync?: string; prefill?: boolean }) => {
    const params: PrepareParams & { max_tokens: number } = { model: MODEL, max_tokens: 1024, system, tools: TOOLS, messages: outgoing(list) };
    const systemNow = JSON.stringify(system);
    const expectResync = extra.expectResync ?? (lastSystem !== undefined && lastSystem !== systemNow ? 'system_changed' : undefined);
    lastSystem = systemNow;
    let out: Prepared<typeof params>;
    try {
      out = await prepare(params, {
        conversationId: id,
        store,
        now,
        render: renderOptions,
        ...(tail !== undefined ? { tail } : {}),
        ...(extra.hide && extra.hide.length > 0 ? { hide: extra.hide } : {}),
      });
    } catch (e) {
      throw new Error(`${label}: prepare threw ${describeError(e)}`, { cause: e });
    }
    stats.requests++;
    if (storeKind === 'redis') stats.redisRequests++;
    const { params: req, plan, rendered } = out;
    const issue = validateRequest(req as never);
    if (issue) throw new Error(`${label}: request refused by the validator: ${issue.message}`);
    if (markers(req) > 4) throw new Error(`${label}: ${markers(req)} cache markers`);
    if (sim) {
      const r = sim.send(req as never, now);
      if (r.rejected) throw new Error(`${label}: the simulator refused the request: ${r.rejected.message}`);
      if (r.explain?.bust)
        throw new Error(`${label}: a bust: ${r.explain.missedTokens} tokens of a warm entry (position ${r.explain.missedPosition}) no marker could reach`);
      if (cut) stats.judgedAfterCut++;
    }
    for (const p of rendered.cachePoints) if (p.index >= rendered.tailStart) throw new Error(`${label}: a cache marker on the tail (${p.path})`);
    if (s.keepsThinking) checkCurrentThinking(rendered.state, req as never, label);
    if (extra.prefill) {
      const last = req.messages.at(-1)!;
      if (last.role !== 'assistant' || markers(last) > 0) throw new Error(`${label}: the prefill is not the last, unmarked message`);
      stats.prefills++;
    }
    if (expectResync !== undefined) {
      if (plan.resync?.reason !== expectResync)
        throw new Error(`${label}: expected a resync (${expectResync}), got ${plan.resync ? plan.resync.reason : 'none'}`);
      if (!plan.resync.detail) throw new Error(`${label}: a resync without a detail`);
      stats.resyncs++;
    } else if (plan.resync && !diverged) {
      throw new Error(`${label}: unexpected resync ${plan.resync.reason}: ${plan.resync.detail}`);
    }
    if (script.usage) await feedUsage(label, out);
    return out;
  };

  /** The response's usage, as the plan predicted it, fed back; the calibration must stay exactly 1. */
  const feedUsage = async (label: string, out: Prepared<PrepareParams>) => {
    const u = out.plan.usage;
    const total = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    if (total !== out.plan.tokens.total) throw new Error(`${label}: the plan's usage adds up to ${total}, its tokens to ${out.plan.tokens.total}`);
    const conversation = { conversationId: id, store, now };
    let recorded: boolean;
    try {
      recorded = await recordUsage({ id: `msg_${++seq}`, usage: { ...u, output_tokens: 10 } }, conversation);
    } catch (e) {
      throw new Error(`${label}: recordUsage threw ${describeError(e)}`, { cause: e });
    }
    if (!recorded) throw new Error(`${label}: recordUsage found no prepared request waiting`);
    const st = await conversationStats(conversation);
    if (!st || st.pendingUsage || st.calibration !== 1)
      throw new Error(`${label}: after recordUsage: ${JSON.stringify(st && { pending: st.pendingUsage, calibration: st.calibration })}`);
    respondedAt = now;
    tokenFactor = st.calibration;
    stats.usageRecorded++;
  };

  /** A wrong request is never sent: markers aside, the same as a fresh conversation renders from the same array (when neither removed anything). */
  const checkContent = async (label: string, out: Prepared<PrepareParams>, list: readonly MessageParam[]) => {
    if (decided(out.rendered.state)) return;
    const fresh = await prepare({ model: MODEL, max_tokens: 1024, system, tools: TOOLS, messages: outgoing(list) } as PrepareParams, {
      conversationId: 'fresh',
      store: new MemoryConversationStore(),
      now,
      render: renderOptions,
      ...(tail !== undefined ? { tail } : {}),
    });
    if (decided(fresh.rendered.state)) return;
    stats.contentChecks++;
    if (stripped(out.params) !== stripped(fresh.params))
      throw new Error(`${label}: the request differs from a fresh render of the same messages (a wrong request)`);
  };

  const remember = (state: TimelineState, reset: boolean) => {
    for (const t of state.turns) {
      for (const b of turnBlocks(t)) {
        if (!originals.has(b.path) || (reset && !(b.path in state.hidden))) originals.set(b.path, JSON.stringify(b.param));
      }
    }
  };

  const checkRecall = async (state: TimelineState, label: string, all: boolean) => {
    const removed = new Set([...Object.keys(state.hidden), ...state.summaries.flatMap((x) => x.paths)]);
    for (const path of removed) {
      if (!all && recalled.has(path)) continue;
      const original = originals.get(path);
      if (original === undefined) continue; // the prune notice
      recalled.add(path);
      let back: ContentBlockParam;
      try {
        back = await recallFromConversation(path, { conversationId: id, store });
      } catch (e) {
        throw new Error(`${label}: recallFromConversation(${path}) threw ${describeError(e)}`, { cause: e });
      }
      if (JSON.stringify(back) !== original) throw new Error(`${label}: recallFromConversation(${path}) is not byte-identical`);
      stats.recalled++;
    }
  };

  const userIndexes = () => messages.flatMap((m, i) => (m.role === 'user' && i > 0 ? [i] : []));

  /** The loop's detours before request `k`: each one is a request of its own (or changes how the next is sent). */
  const detours = async (k: number, label: string): Promise<{ prefill: boolean }> => {
    let prefill = false;
    for (const m of pending.filter((x) => x.at === k)) {
      const sentBefore = sentCount;
      switch (m.kind) {
        case 'copy': {
          if (sentBefore === 0) break;
          const i = m.pick % sentBefore;
          messages[i] = structuredClone(messages[i]!);
          break; // the next request must not resync
        }
        case 'edit':
        case 'push': {
          // Edit a turn-starting user message or a tool-result message the conversation already holds.
          const users = userIndexes().filter((i) => i < sentBefore);
          const candidates = [0, ...users];
          const i = candidates[m.pick % candidates.length]!;
          if (i >= sentBefore) break;
          const old = messages[i]!;
          const blocks = (typeof old.content === 'string' ? [text(old.content)] : old.content) as ContentBlockParam[];
          if (m.kind === 'push' && Array.isArray(old.content)) {
            (old.content as ContentBlockParam[]).push(text(`pushed ${++seq}`));
          } else {
            messages[i] = { role: 'user', content: [...blocks, text(`edited ${++seq}`)] };
          }
          diverged = true;
          const out = await send(`${label} (after ${m.kind} of messages[${i}])`, messages, { expectResync: 'history_edited' });
          sentCount = messages.length;
          if (out.plan.resync!.at !== i) throw new Error(`${label}: resync at ${out.plan.resync!.at}, the edit was at ${i}`);
          await checkContent(`${label} (${m.kind})`, out, messages);
          remember(out.rendered.state, true);
          break;
        }
        case 'retry':
        case 'cut': {
          // Re-send an earlier request: the previous one without its last response and results (retry: the request
          // before it; re-sending the previous request itself maps nothing), or an older cut.
          const users = userIndexes().filter((i) => i < (m.kind === 'retry' ? sentBefore - 1 : sentBefore));
          if (users.length === 0) break;
          const last = m.kind === 'retry' ? users.at(-1)! : users[m.pick % users.length]!;
          const list = messages.slice(0, last + 1);
          if (list.length >= sentBefore) break;
          diverged = true;
          const out = await send(`${label} (${m.kind} to messages[0..${last}])`, list, { expectResync: 'history_truncated' });
          cut = true;
          if (m.kind === 'retry') stats.retries++;
          sentCount = list.length;
          await checkContent(`${label} (${m.kind})`, out, list);
          remember(out.rendered.state, true);
          break; // then the loop goes on with its whole array (appended again)
        }
        case 'system': {
          instructions = [...instructions, `system change ${++seq}`];
          system = instructions.map(text);
          ref = setEnvelope(ref, { instructions, tools: TOOLS });
          break;
        }
        case 'prefill':
          prefill = true;
          break;
        case 'switch': {
          // Carry the conversation to another store through its exported JSON.
          const rec = await store.load(id);
          if (!rec) break;
          const back = importState(exportState(rec), id);
          storeKind = storeKind === 'memory' ? 'file' : storeKind === 'file' && env.redis ? 'redis' : 'memory';
          store = newStore(storeKind);
          await store.save(back, null);
          stats.roundTrips++;
          break;
        }
      }
    }
    return { prefill };
  };

  const request = async (label: string) => {
    const k = requestNo++;
    const { prefill } = await detours(k, label);
    applyRef();
    const hide: HideRequest[] = [];
    for (const h of hides) {
      if (diverged) {
        // After a detour the reference no longer follows: prepare finds the result by its call.
        hide.push({ toolUseId: h.toolUseId, defer: true, ...(h.force ? { force: true } : {}) });
        continue;
      }
      const path = refPathOf(ref, h.toolUseId);
      if (!path) continue;
      ref = hideBlock(ref, path, { ...renderOptions, now, defer: true, ...(h.force ? { force: true } : {}) }).state;
      hide.push({ path, defer: true, ...(h.force ? { force: true } : {}) });
    }
    hides = [];
    ref = setTail(ref, tail ?? []);
    const list = prefill ? [...messages, { role: 'assistant' as const, content: `{"prefill": ${++seq}` }] : messages;
    const out = await send(label, list, { hide, prefill });
    sentCount = messages.length;
    const r = render(ref, { ...renderOptions, now, tokenFactor });
    ref = r.state;
    if (!diverged) {
      const want = JSON.stringify(toAnthropic(r, { max_tokens: 1024 }));
      const got = JSON.stringify(prefill ? { ...out.params, messages: out.params.messages.slice(0, -1) } : out.params);
      if (got !== want) throw new Error(`${label}: prepare's request differs from the Session path's`);
      stats.sameBytes++;
    } else {
      await checkContent(label, out, list);
    }
    remember(r.state, false);
    remember(out.rendered.state, false);
    await checkRecall(out.rendered.state, label, false);
  };

  try {
    for (const [ti, t] of s.turns.entries()) {
      now += t.gap * 1000;
      messages.push({ role: 'user', content: t.user.map(text) });
      const last = ti === s.turns.length - 1;
      for (const [ri, rd] of t.rounds.entries()) {
        await request(`turn ${ti + 1} round ${ri + 1}`);
        const response: ContentBlockParam[] = [];
        if (rd.thinking) response.push({ type: 'thinking', thinking: `thinking ${seq}`, signature: `sig-${seq}` });
        if (rd.text !== null) response.push(text(rd.text));
        const ids = rd.calls.map(() => `toolu_${String(++seq).padStart(6, '0')}`);
        rd.calls.forEach((c, k) => response.push({ type: 'tool_use', id: ids[k]!, name: k % 2 ? 'Grep' : 'Read', input: cappedInput(c.input) }));
        messages.push({ role: 'assistant', content: response });
        const results: ToolResultBlockParam[] = rd.calls.map((c, k) => ({
          type: 'tool_result',
          tool_use_id: ids[k]!,
          content: typeof c.result === 'string' ? capped(c.result) : c.result.map((p) => text(capped(p))),
          ...(c.isError ? { is_error: true } : {}),
        }));
        messages.push({ role: 'user', content: [...results, ...rd.injected.map(text)] });
        now += 3000;
        if (rd.tail) tail = rd.tail.map(text);
        if (rd.hide) {
          // Candidates from the calls answered so far (their paths are the same on both paths until a detour).
          const candidates = messages.flatMap((m) =>
            m.role === 'assistant' && Array.isArray(m.content) ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
          );
          const toolUseId = candidates[rd.hide.pick % candidates.length]!;
          hides.push({ toolUseId, force: rd.hide.force });
        }
        now += rd.gap * 1000;
      }
      await request(`turn ${ti + 1} final`);
      if (!(last && s.open)) messages.push({ role: 'assistant', content: t.final.map(text) });
    }
    const rec = await store.load(id);
    if (rec) await checkRecall(rec.state, 'end', true);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    for (const r of redisStores) await r.delete(id).catch(() => undefined);
  }
}

function refPathOf(state: TimelineState, toolUseId: string): string | undefined {
  for (const t of state.turns) for (const r of t.rounds) for (const b of r.results) if (b.id === toolUseId) return b.path;
  return undefined;
}

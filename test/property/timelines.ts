/**
 * Random sessions of every shape, and the checks every render of them must
 * pass (issue 13, "What must be shown"). Shared by the property test (a few
 * hundred cases in `npm test`) and `npm run fuzz` (≥ 10,000).
 *
 * Shapes: parallel calls, thinking, empty and whitespace-only text everywhere
 * (user messages, responses, tool_result parts, injected text, the tail),
 * large and huge payloads, deeply nested tool inputs, error results, hides
 * (deferred or applied), pauses past 5 minutes and past an hour, windows small
 * enough to compact, and every policy / TTL / offset / prune / compact
 * combination that validates.
 *
 * Checks, every render: no throw; the request passes our validator (the fake
 * server's: pairing, ≤ 4 markers, TTL order, no empty or blank text, no marker
 * on thinking); no marker on the tail (but ④ on its last markable block on a
 * model that binds thinking, which keeps the sent tail); when only rounds were appended since the
 * previous render (no prune, hide or compaction), its bytes up to ④ are a
 * prefix of this one's; every hidden, pruned or compacted payload is recalled
 * byte-identical, from the state and from a payload store. Every third request,
 * the state taken through export, import and rehydrate renders the same bytes
 * (the incremental paths equal a render from scratch). On models that bind
 * thinking (interleaved thinking, immediate hides of text and tool blocks), no
 * thinking block goes back with a prefix other than the one it was produced
 * under (a ledger of the responses as the model produced them, blank text included).
 */
import type { ContentBlockParam, TextBlockParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import fc from 'fast-check';
import { customProfile } from '../../src/models/profiles.js';
import { serializeWithOffsets, toAnthropic } from '../../src/providers/anthropic.js';
import { hideBlock, recall } from '../../src/render/hide-block.js';
import { isCompacted } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { MemoryPayloadStore } from '../../src/recall/memory.js';
import { recordState } from '../../src/recall/record.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { assertPrefixStable } from '../../src/testing/stability.js';
import { appendResponse, appendToolResults, createTimeline, setTail, startTurn } from '../../src/timeline/edit.js';
import { turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';
import { exportState, importState, rehydrate } from '../../src/conversation/state.js';
import type { ConversationRecord } from '../../src/conversation/types.js';
import type { MessageCreateParamsBase } from '../../src/providers/anthropic-types.js';
import { ThinkingLedger } from '../../src/sim/binding.js';

// TYPES

/** A piece of text content: blank pieces are dropped by the edits, the rest kept. */
type Piece = string;

interface CallScript {
  readonly input: Record<string, unknown>;
  readonly result: string | readonly Piece[];
  readonly isError: boolean;
}

interface RoundScript {
  readonly thinking: boolean;
  readonly text: Piece | null;
  readonly calls: readonly CallScript[];
  readonly injected: readonly Piece[];
  /** Seconds before the render of the next request. */
  readonly gap: number;
  /** Hide a block of an earlier round: which one (modulo the candidates), and whether to force it. */
  readonly hide: { readonly pick: number; readonly force: boolean } | null;
  readonly tail: readonly Piece[] | null;
}

interface TurnScript {
  readonly user: readonly Piece[];
  readonly gap: number;
  readonly rounds: readonly RoundScript[];
  readonly final: readonly Piece[];
}

/** One random session and the options it renders under. */
export interface SessionScript {
  readonly options: Omit<RenderOptions, 'now' | 'profile'>;
  readonly window: number;
  readonly keepsThinking: boolean;
  /** With keepsThinking: the model binds thinking to its prefix (preserved thinking, render/bind.ts). */
  readonly bindsThinking: boolean;
  /** Count tokens with tiktoken (slow) instead of characters / 4 (what is checked does not depend on it). */
  readonly tiktoken: boolean;
  readonly instructions: readonly string[];
  readonly turns: readonly TurnScript[];
  /** Leave the last turn open (its last request is for a next round). */
  readonly open: boolean;
}

// ARBITRARIES

const WORDS = ['const', 'value', 'return', 'export', 'function', 'await', 'cache', 'render', 'stream', 'block', 'é', '漢字', '😀', '"q"', '\\', '\n', '\t'];

/** Deterministic varied text of `size` characters. */
function filler(seed: number, size: number): string {
  let h = (seed * 2654435761) >>> 0;
  let out = '';
  while (out.length < size) {
    h = Math.imul(h ^ (h >>> 13), 1274126177) >>> 0;
    out += `${WORDS[h % WORDS.length]}_${(h >>> 8) % 997} `;
  }
  return `x${out.slice(0, size - 1)}`;
}

const blank = fc.constantFrom('', ' ', '\n', '\t \n', '\u00a0');
const short = fc.string({ minLength: 1, maxLength: 40 }).map((s) => (s.trim() === '' ? `w${s}` : s));
const large = fc.tuple(fc.nat(), fc.integer({ min: 1000, max: 4000 })).map(([seed, n]) => filler(seed, n));
const huge = fc.tuple(fc.nat(), fc.integer({ min: 15_000, max: 40_000 })).map(([seed, n]) => filler(seed, n));

/** Text that survives the edits (not blank). */
const solid = fc.oneof({ weight: 6, arbitrary: short }, { weight: 3, arbitrary: large });
const piece = fc.oneof({ weight: 3, arbitrary: solid }, { weight: 1, arbitrary: blank });
/** Pieces of which at least one survives. */
const someSolid = fc.tuple(fc.array(piece, { maxLength: 2 }), solid, fc.array(piece, { maxLength: 2 })).map(([a, s, b]) => [...a, s, ...b]);

/** Nested tool input: objects and arrays, up to `depth` levels. */
const nested = fc
  .oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 12 }) }, { weight: 1, arbitrary: fc.integer({ min: 200, max: 800 }) })
  .chain((depth) =>
    fc.tuple(fc.constant(depth), fc.boolean(), short).map(([d, arrays, leaf]) => {
      let v: unknown = leaf;
      for (let i = 0; i < d; i++) v = arrays && i % 2 === 0 ? [v, i] : { [`k${i % 3}`]: v };
      return v;
    }),
  );

const input = fc.record({ path: short, deep: nested, note: fc.oneof(short, blank) });

/** One output that several calls return (a re-read of an unchanged file): economy sends it once and points at it. */
const REPEATED = '   1\tthe same unchanged file, read again\n'.repeat(20);

const result = fc.oneof(
  { weight: 5, arbitrary: solid },
  { weight: 1, arbitrary: fc.constant(REPEATED) },
  { weight: 1, arbitrary: fc.oneof({ weight: 1, arbitrary: huge }, { weight: 2, arbitrary: large }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.array(piece, { maxLength: 4 }) },
);

const call = fc.record({ input, result, isError: fc.boolean() });

/** Seconds: mostly warm, sometimes past 5 minutes, sometimes past an hour. */
const gap = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 60 }) },
  { weight: 2, arbitrary: fc.integer({ min: 301, max: 900 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3601, max: 7200 }) },
);

const round = fc.record({
  thinking: fc.boolean(),
  text: fc.option(piece, { nil: null }),
  // At most one huge result per round, so the newest round always fits the window.
  calls: fc.array(call, { minLength: 1, maxLength: 4 }).map((cs) => {
    let seenHuge = false;
    return cs.map((c) => {
      const isHuge = typeof c.result === 'string' && c.result.length >= 15_000;
      if (isHuge && seenHuge) return { ...c, result: c.result.slice(0, 2000) };
      seenHuge ||= isHuge;
      return c;
    });
  }),
  injected: fc.array(piece, { maxLength: 2 }),
  gap,
  hide: fc.option(fc.record({ pick: fc.nat(), force: fc.boolean() }), { nil: null, freq: 4 }),
  tail: fc.option(fc.array(piece, { maxLength: 3 }), { nil: null, freq: 2 }),
});

const turn = fc.record({
  user: someSolid,
  gap,
  rounds: fc.array(round, { maxLength: 6 }),
  final: someSolid,
});

/** TTLs that validate: never growing from envelope to tail; keys at '5m' may be left out. */
const ttl = fc.tuple(fc.constantFrom(0, 1, 2, 3, 3, 4), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 })).map(([ones, drop]) => {
  const keys = ['envelope', 'previousTurn', 'preTail', 'tail'] as const;
  const out: Record<string, '5m' | '1h'> = {};
  keys.forEach((k, i) => {
    const v = i < ones ? '1h' : '5m';
    if (!(v === '5m' && drop[i])) out[k] = v;
  });
  return out as NonNullable<RenderOptions['ttl']>;
});

const compactOptions = fc
  .record({
    threshold: fc.double({ min: 0.3, max: 1, noNaN: true }),
    share: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
    enabled: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ threshold, share, enabled }) => ({ threshold, target: threshold * share, ...(enabled === undefined ? {} : { enabled }) }));

const pruneOptions = fc.record(
  {
    enabled: fc.boolean(),
    keepTurns: fc.integer({ min: 0, max: 3 }),
    keepRounds: fc.integer({ min: 0, max: 8 }),
    minChars: fc.constantFrom(0, 50, 300, 1000),
  },
  { requiredKeys: [] },
);

/** Each option set three times in four (absent: its default). */
const mostly = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });

const options = fc
  .record({
    policy: mostly(fc.constantFrom('conservative' as const, 'economy' as const)),
    ttl: mostly(ttl),
    preTailOffset: mostly(fc.oneof(fc.constantFrom(0, 1, 1, 2), fc.integer({ min: 0, max: 6 }))),
    adaptiveTtl: mostly(fc.boolean()),
    prune: mostly(pruneOptions),
    compact: mostly(compactOptions),
    tokenFactor: mostly(fc.double({ min: 0.8, max: 1.5, noNaN: true })),
    expectedRemaining: mostly(fc.integer({ min: 0, max: 50 })),
  })
  .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Omit<RenderOptions, 'now' | 'profile'>);

/** A random session script. */
export const sessionScript: fc.Arbitrary<SessionScript> = fc.record({
  options,
  window: fc.constantFrom(20_000, 20_000, 60_000, 100_000, 200_000),
  keepsThinking: fc.boolean(),
  bindsThinking: fc.boolean(),
  tiktoken: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
  instructions: fc.array(solid, { minLength: 1, maxLength: 3 }),
  turns: fc.array(turn, { minLength: 1, maxLength: 5 }),
  open: fc.boolean(),
});

// RUNNER

const TOOLS: Tool[] = [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'Grep', description: 'Searches files.', input_schema: { type: 'object' } },
];

const text = (t: string): TextBlockParam => ({ type: 'text', text: t });

/** What one run did, for the fuzz summary. */
export interface RunStats {
  renders: number;
  compactions: number;
  prunes: number;
  hides: number;
  recalled: number;
  stabilityChecks: number;
}

const charTokens = new BlockTokenCache(charCounter());

export function emptyStats(): RunStats {
  return { renders: 0, compactions: 0, prunes: 0, hides: 0, recalled: 0, stabilityChecks: 0 };
}

/**
 * Plays a script through the engine and checks every render. Throws (an
 * assertion error with the request index and what failed) on a violation.
 */
/**
 * The API needs the current turn's thinking (its tool-use loop) and the latest assistant message's sent back
 * unchanged: on a model that keeps thinking, each such block of a round still visible (not compacted) is in the request.
 */
export function checkCurrentThinking(state: TimelineState, params: { messages: readonly { content: unknown }[] }, label: string): void {
  const turn = state.turns.at(-1);
  if (!turn) return;
  // The current turn's rounds; before its first, the newest round of the turns before it (the latest assistant message).
  let at = state.turns.length;
  while (at > 1 && state.turns[at - 1]!.rounds.length === 0) at--;
  const owner = state.turns[at - 1]!;
  const rounds = (owner === turn ? turn.rounds : owner.rounds.slice(-1)).map((r) => [owner, r] as const);
  let sent: Set<string> | undefined;
  for (const [t, round] of rounds) {
    if (isCompacted(state, t.index, round.index)) continue;
    for (const b of round.response) {
      if (b.param.type !== 'thinking' && b.param.type !== 'redacted_thinking') continue;
      sent ??= new Set(params.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []).map((c) => JSON.stringify(c))));
      if (!sent.has(JSON.stringify(b.param))) throw new Error(`${label}: the thinking ${b.path} of the latest turn is not sent unchanged`);
    }
  }
}

/**
 * Runs one session. `simulate`: every request also goes through the provider cache simulator (the same profile,
 * four characters a token), which must neither refuse it nor find a bust (a warm entry of this prefix that no
 * marker could reach), keepsThinking:false sessions with injected text and thinking included: the ledger follows the
 * API's strip rule, "When a non-tool-result user block is included, all previous thinking blocks are ignored and
 * stripped from context" (Anthropic, extended thinking, "Understanding thinking block caching behavior"), through
 * the strip boundary (render/projection.ts stripBoundary, validEntries).
 */
export function runScript(script: SessionScript, stats: RunStats = emptyStats(), simulate = false): void {
  const profile = customProfile(`fuzz-${script.window}-${script.keepsThinking}`, {
    contextWindow: script.window,
    keepsThinking: script.keepsThinking,
    bindsThinking: script.keepsThinking && script.bindsThinking,
    prices: { input: 3 },
  });
  const opts: RenderOptions = { ...script.options, profile, ...(script.tiktoken ? {} : { tokens: charTokens }) };
  let state: TimelineState = createTimeline({
    model: 'claude-sonnet-4-6',
    instructions: script.instructions.map((i) => (script.window < 60_000 ? i.slice(0, 2000) : i)),
    tools: TOOLS,
  });
  const originals = new Map<string, string>();
  const store = new MemoryPayloadStore();
  let now = 1_700_000_000_000;
  let seq = 0;
  // A small window compacts often; there, payloads are capped so the newest round always fits
  // (a single round larger than the window is a ContextOverflowError by contract, not a defect).
  const cap = script.window < 60_000 ? 2000 : Number.POSITIVE_INFINITY;
  const capped = (t: string) => (t.length > cap ? t.slice(0, cap) : t);
  const cappedInput = (i: Record<string, unknown>) => (JSON.stringify(i).length > cap ? { path: capped(String(i.path)) } : i);
  let prev: Rendered | undefined;
  const sim = simulate ? new CacheSimulator({ profile, countTokens: (b: unknown) => Math.ceil(JSON.stringify(b).length / 4) }) : undefined;
  const busts = simulate;
  const binds = profile.bindsThinking === true;
  // Preserved thinking: each response's thinking is bound to the request that produced it, as the model produced it.
  const ledger = new ThinkingLedger();
  let sent: MessageCreateParamsBase | undefined;
  let prevPrefix = '';
  let changedSince = false; // a hide applied since prev
  let turnSince = false; // a turn started since prev

  const remember = () => {
    const t = state.turns.at(-1);
    if (!t) return;
    for (const b of turnBlocks(t)) if (!originals.has(b.path)) originals.set(b.path, JSON.stringify(b.param));
  };

  // Each removed path is recalled from the state when it is first removed; at the end, every
  // one again, from the state and from a payload store the final state was recorded into.
  const checked = new Set<string>();
  const checkRecall = (s: TimelineState, label: string, end: boolean) => {
    if (end) recordState(store, s);
    const removed = new Set([...Object.keys(s.hidden), ...s.summaries.flatMap((x) => x.paths)]);
    for (const path of removed) {
      if (!end && checked.has(path)) continue;
      checked.add(path);
      const original = originals.get(path);
      if (original === undefined) continue; // the prune notice: not a payload we appended
      const back = JSON.stringify(recall(s, path));
      if (back !== original) throw new Error(`${label}: recall(${path}) is not byte-identical`);
      if (end) {
        const stored = store.get(path);
        if (!stored || JSON.stringify(stored.payload) !== original) throw new Error(`${label}: the store's copy of ${path} is not byte-identical`);
      }
      stats.recalled++;
    }
  };

  const request = (label: string) => {
    let r: Rendered;
    try {
      r = render(state, { ...opts, now });
    } catch (e) {
      throw new Error(`${label}: render threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
    }
    stats.renders++;
    const params = toAnthropic(r, { max_tokens: 1024 });
    sent = params as unknown as MessageCreateParamsBase;
    if (binds) {
      const at = ledger.check(sent);
      if (at) throw new Error(`${label}: the thinking at ${at} goes back with a prefix it was not produced under`);
    }
    // From scratch: every third request, the state taken through export, import and rehydrate (a process switch)
    // renders the same bytes as the live one (incremental projection, memoized blocks, the open turn's records).
    if (stats.renders % 3 === 0) {
      const record = {
        id: 'fuzz',
        revision: 0,
        state,
        consumed: [],
        envelope: { model: 'm', system: 's', tools: 't' },
        prices: profile.prices,
        requests: [],
        updatedAt: 0,
      };
      const copy = rehydrate(importState(exportState(record as unknown as ConversationRecord), 'fuzz'), profile, opts.tokens).state;
      if (JSON.stringify(toAnthropic(render(copy, { ...opts, now }), { max_tokens: 1024 })) !== JSON.stringify(params))
        throw new Error(`${label}: the live state and its exported copy render different requests`);
    }
    if (sim) {
      const s = sim.send(params as never, now);
      if (s.rejected) throw new Error(`${label}: the simulator refused the request: ${s.rejected.message}`);
      if (busts && s.explain?.bust)
        throw new Error(`${label}: a bust: ${s.explain.missedTokens} tokens of a warm entry (position ${s.explain.missedPosition}) no marker could reach`);
    }
    const issue = validateRequest(params);
    if (issue) throw new Error(`${label}: request refused by the validator: ${issue.message}`);
    // On a model that binds thinking the sent tail stays in the history once answered (render/bind.ts): ④ may sit on
    // its last markable block (cache-points.ts), and no other marker on the tail.
    const stream = r.stream;
    let tailPoint = -1;
    for (let i = stream.length - 1; binds && i >= r.tailStart; i--)
      if (stream[i]!.markable) {
        tailPoint = i;
        break;
      }
    for (const p of r.cachePoints)
      if (p.index >= r.tailStart && !(p.index === tailPoint && p.labels.includes(4))) throw new Error(`${label}: a cache marker on the tail (${p.path})`);
    // (Binding models leave the loop's thinking out after an immediate hide or a compaction: the ledger checks them.)
    if (script.keepsThinking && !binds) checkCurrentThinking(r.state, params, label);
    const changed = r.decisions.some((d) => d.type !== 'defer');
    stats.compactions += r.decisions.filter((d) => d.type === 'compact').length;
    stats.prunes += r.decisions.filter((d) => d.type === 'prune').length;
    // Serialized once per render: this render's whole request now, its prefix up to ④ for the next one.
    const { json, ends } = serializeWithOffsets(toAnthropic({ ...r, cachePoints: [] }, { max_tokens: 1024 }));
    const four = r.cachePoints.find((p) => p.labels.includes(4));
    if (prev && !changed && !changedSince && (script.keepsThinking || !turnSince)) {
      stats.stabilityChecks++;
      if (!json.startsWith(prevPrefix)) {
        try {
          assertPrefixStable(prev, r, { max_tokens: 1024 });
        } catch (e) {
          throw new Error(`${label}: prefix not stable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
        }
        throw new Error(`${label}: prefix not stable`);
      }
    }
    prevPrefix = four ? json.slice(0, ends[four.index]) : '';
    // Availability: every removed payload, byte-identical, from the state and from a store.
    checkRecall(r.state, label, false);
    state = r.state;
    prev = r;
    changedSince = false;
    turnSince = false;
  };

  script.turns.forEach((t, ti) => {
    now += t.gap * 1000;
    state = startTurn(state, t.user.map(text), now);
    turnSince = true;
    remember();
    const last = ti === script.turns.length - 1;
    t.rounds.forEach((rd, ri) => {
      request(`turn ${ti + 1} round ${ri + 1}`);
      const response: ContentBlockParam[] = [];
      if (rd.thinking) response.push({ type: 'thinking', thinking: `thinking ${seq}`, signature: `sig-${seq}` });
      if (rd.text !== null) response.push(text(rd.text));
      // Interleaved thinking (after the text, in the same response) in every other such response.
      if (rd.thinking && rd.text !== null && seq % 2 === 0) response.push({ type: 'thinking', thinking: `more ${seq}`, signature: `sig-more-${seq}` });
      const ids = rd.calls.map(() => `toolu_${String(++seq).padStart(6, '0')}`);
      rd.calls.forEach((c, k) => response.push({ type: 'tool_use', id: ids[k]!, name: k % 2 ? 'Grep' : 'Read', input: cappedInput(c.input) }));
      now += 2000;
      state = appendResponse(state, response, now);
      if (sent) ledger.record(sent, response);
      const results: ToolResultBlockParam[] = rd.calls.map((c, k) => ({
        type: 'tool_result',
        tool_use_id: ids[k]!,
        content: typeof c.result === 'string' ? capped(c.result) : c.result.map((p) => text(capped(p))),
        ...(c.isError ? { is_error: true } : {}),
      }));
      now += 1000;
      state = appendToolResults(state, results, rd.injected.map(text), now);
      remember();
      if (rd.tail) state = setTail(state, rd.tail.map(text));
      if (rd.hide) {
        const candidates = state.turns.flatMap((tt) =>
          tt.rounds.flatMap((rr) =>
            [...rr.response, ...rr.results]
              .filter((b) => (b.param.type === 'tool_result' || b.param.type === 'tool_use' || b.param.type === 'text') && !b.path.startsWith('notices/'))
              .map((b) => b.path),
          ),
        );
        const path = candidates[rd.hide.pick % candidates.length]!;
        const before = state.hidden;
        state = hideBlock(state, path, { ...opts, now, defer: true, force: rd.hide.force }).state;
        if (state.hidden !== before) {
          changedSince = true;
          stats.hides++;
        }
      }
      now += rd.gap * 1000;
    });
    request(`turn ${ti + 1} final`);
    if (!(last && script.open)) {
      state = appendResponse(state, t.final.map(text), now + 1000);
      if (sent) ledger.record(sent, t.final.map(text));
      remember();
    }
  });
  checkRecall(state, 'end', true);
}

/**
 * The freshness rule: which payloads are old and bulky enough to prune. The
 * prune pass applies it, compaction applies it for free to what it re-writes
 * anyway, and cache-point placement keeps ④ before what the next prune will
 * remove. Pure functions of the state and the resolved prune options.
 */
import type { Block, StreamBlock, TimelineState } from '../timeline/types.js';
import { hiddenRecord, payloadChars, PRUNE_NOTICE } from './notes.js';
import type { PassContext } from './context.js';
import { expectedRemaining, noticePrice } from './gate.js';
import { isCompacted, isThinking } from './projection.js';
import { reuseWeigher } from './reuse.js';
import type { PruneOptions } from './types.js';

const chars = new WeakMap<Block, number>();
/** Characters of a block's payload, memoized per block. */
function sizeOf(b: Block): number {
  let n = chars.get(b);
  if (n === undefined) chars.set(b, (n = payloadChars(b.param)));
  return n;
}

/**
 * Blocks old and bulky enough to prune, oldest first.
 *
 * @param thinking also the thinking blocks of earlier turns (economy, on models that keep them): the API
 *   lets a request omit them, so the renderer leaves them out (render/projection.ts) rather than altering
 *   them; a response that is only thinking keeps it (an empty assistant message is invalid), and the current
 *   turn's thinking is never a candidate (the API needs the last assistant message's thinking unchanged)
 */
export function pruneCandidates(state: TimelineState, o: Readonly<Required<PruneOptions>>, thinking = false): Block[] {
  const out: Block[] = [];
  if (!o.enabled) return out;
  const lastTurn = state.turns.length;
  // The most recent keepRounds rounds, counted across turn boundaries.
  let keepFrom = { turn: lastTurn + 1, round: 0 };
  let left = o.keepRounds;
  for (let t = lastTurn; t >= 1 && left > 0; t--) {
    const rounds = state.turns[t - 1]!.rounds.length;
    if (rounds >= left) {
      keepFrom = { turn: t, round: rounds - left + 1 };
      left = 0;
    } else {
      left -= rounds;
      keepFrom = { turn: t, round: 1 };
    }
  }
  const lastPrunableTurn = Math.min(lastTurn - o.keepTurns, keepFrom.turn);
  // The latest assistant message keeps its thinking even with keepRounds 0: the newest round of the session, in an
  // earlier turn while the current one (and any turn between, user messages with no answer) has none yet (the
  // current turn's thinking is never a candidate).
  let latest: TimelineState['turns'][number]['rounds'][number] | undefined;
  for (let t = lastTurn; thinking && t >= 1 && latest === undefined; t--) latest = state.turns[t - 1]!.rounds.at(-1);
  for (let t = 1; t <= lastPrunableTurn; t++) {
    const turn = state.turns[t - 1]!;
    if (isCompacted(state, t, turn.rounds.length)) continue;
    for (const round of turn.rounds) {
      if (t === keepFrom.turn && round.index >= keepFrom.round) break;
      if (isCompacted(state, t, round.index)) continue;
      const earlierThinking = thinking && t < lastTurn && round !== latest && round.response.some((x) => !isThinking(x));
      for (const b of [...round.response, ...round.results]) {
        const type = b.param.type;
        const bulky = type === 'tool_result' || type === 'tool_use' || type === 'text' || (earlierThinking && isThinking(b));
        if (bulky && b.path !== 'notices/prune' && !state.hidden[b.path] && sizeOf(b) >= o.minChars) out.push(b);
      }
    }
  }
  return out;
}

/**
 * Under `economy` with `keepRounds: 1`, the newest round's bulky payloads the
 * re-use gate will not keep are pruned by the very next request, so they are never read from cache: ④ stops
 * before the first of them and they are sent uncached (1× instead of a 1.25×
 * write nobody reads). Returns that stream index, or undefined.
 */
export function doomedFrom(stable: readonly StreamBlock[], state: TimelineState, ctx: PassContext): number | undefined {
  const options = ctx.options;
  if (options.policy !== 'economy') return undefined;
  const o = options.prune;
  if (!o.enabled || o.keepRounds > 1 || o.keepTurns > 0) return undefined;
  const turn = state.turns.at(-1);
  const round = turn?.rounds.at(-1);
  if (!turn || !round) return undefined;
  // The gate's own verdict for the next request (warm, the same remaining): what it keeps is read again.
  const weigh = reuseWeigher(state, stable, ctx, true, expectedRemaining(state, options.expectedRemaining));
  for (let i = stable.length - 1; i >= 0; i--) {
    const b = stable[i]!;
    if (b.turn !== turn.index || b.round !== round.index) {
      // Scan the newest round forwards for its first doomed payload: bulky, and not kept by the re-use gate.
      // A payload the gate keeps is read again, so it must not fall behind ④: ④ stops before the first
      // doomed payload only when nothing kept follows it (nor shares its tool_use / tool_result run).
      const source = new Set([...round.response, ...round.results].filter((x) => sizeOf(x) >= o.minChars).map((x) => x.path));
      const bulkyAt = (j: number): boolean => {
        const c = stable[j]!;
        const type = (c.param as { type?: string }).type;
        return (type === 'tool_result' || type === 'tool_use' || type === 'text') && !c.hidden && c.path !== 'notices/prune' && source.has(c.path);
      };
      const keptAt = (j: number): boolean => o.reuse && bulkyAt(j) && weigh(stable[j]!.path, stable[j]!.tokens)?.keep === true;
      let first: number | undefined;
      for (let j = i + 1; j < stable.length; j++)
        if (bulkyAt(j) && !keptAt(j)) {
          first = j;
          break;
        }
      if (first === undefined) return undefined;
      const from = runStart(stable, first);
      for (let j = from; j < stable.length; j++) if (keptAt(j)) return undefined;
      // The first prune adds the one-time notice: the next request's gate prunes them only if they save more
      // than it costs (prune.ts), so they are doomed only then; otherwise they are read again and worth writing.
      if (!state.pruneNotice && !worthTheNotice(stable, from, bulkyAt, state, ctx, weigh)) return undefined;
      return from;
    }
  }
  return undefined;
}

/**
 * Whether pruning the bulky payloads from `from` on, by the next request (warm, after every entry: no
 * re-write), saves more than their expected recalls plus the one-time notice (the next request's batch
 * rule in prune.ts, for a state that has no notice yet).
 */
function worthTheNotice(
  stable: readonly StreamBlock[],
  from: number,
  bulkyAt: (j: number) => boolean,
  state: TimelineState,
  ctx: PassContext,
  weigh: ReturnType<typeof reuseWeigher>,
): boolean {
  const remaining = expectedRemaining(state, ctx.options.expectedRemaining);
  const prices = ctx.profile.prices;
  let net = -noticePrice(ctx.profile, state, ctx.tokens.tokens({ type: 'text', text: PRUNE_NOTICE }), remaining);
  for (let j = from; j < stable.length; j++) {
    if (!bulkyAt(j)) continue;
    const b = stable[j]!;
    const removed = Math.max(0, b.tokens - ctx.tokens.tokens({ type: 'text', text: hiddenRecord(state, b.path, 'economy').note }));
    net += (removed * prices.cacheRead * (1 + remaining)) / 1e6 - (weigh(b.path, removed)?.expectedRecall ?? 0);
  }
  return net > 0;
}

/**
 * The first block of the tool_use / tool_result run that contains index j. A
 * run counts as one lookback position, and later requests find an entry only at
 * a run's end, so a marker must never stop inside one.
 */
function runStart(stable: readonly StreamBlock[], j: number): number {
  const type = (stable[j]!.param as { type?: string }).type;
  if (type !== 'tool_use' && type !== 'tool_result') return j;
  while (j > 0 && stable[j - 1]!.role === stable[j]!.role && (stable[j - 1]!.param as { type?: string }).type === type) j--;
  return j;
}

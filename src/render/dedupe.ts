/**
 * Duplicate payloads (part of the prune pass, `economy` only). Agents read the
 * same unchanged file again, re-run a command whose output did not change,
 * fetch a page twice: the second result is byte-identical to one the model
 * still sees. Sending it again costs its tokens in every later request; a
 * short note that points at the visible copy costs almost nothing.
 *
 * Only a result that was not in the previous request is replaced, so nothing
 * cached changes (it is in the newest round, after every cache entry) and the
 * decision is free: no re-write, no gate. Nothing is lost to the model either:
 * the identical text is visible earlier in the same request, and the note says
 * where. The record keeps `sameAs` (the visible copy), so:
 * - the re-use gate weighs the copy with the duplicate's chance of being needed
 *   (render/reuse.ts): removing the copy later removes both;
 * - the forced-recall count treats the duplicate as visible while its copy is
 *   (replay/recalls.ts).
 * `recall` of the duplicate's path returns its own payload, byte-identical.
 *
 * Errors and results at or under `prune.minChars` are left alone, as are
 * copies that are hidden or inside a compaction summary.
 */
import { castDraft, produce } from 'immer';
import type { Block, BlockPath, HiddenRecord, TimelineState } from '../timeline/types.js';
import type { PassContext } from './context.js';
import { hiddenRecord, payloadChars } from './notes.js';
import type { Decision } from './types.js';

const keys = new WeakMap<object, string>();

/** The text a duplicate is compared by: its content as sent (memoized per block, so a long session is not re-serialized every render). */
function contentKey(param: { readonly content?: unknown }): string {
  let k = keys.get(param);
  if (k === undefined) {
    k = typeof param.content === 'string' ? param.content : JSON.stringify(param.content ?? null);
    keys.set(param, k);
  }
  return k;
}

/**
 * Replaces every new tool result that repeats a visible earlier one by a note
 * pointing at it (economy only).
 */
export function dedupe(state: TimelineState, ctx: PassContext): { state: TimelineState; decisions: Decision[] } {
  const o = ctx.options;
  if (o.policy !== 'economy' || !o.prune.enabled || state.turns.length === 0) return { state, decisions: [] };
  // Rounds the previous request rendered: every round before its own (turn, round).
  const prev = state.lastRender;
  const isNew = (turn: number, round: number): boolean => !prev || turn > prev.turn || (turn === prev.turn && round >= prev.round);
  const bulky = (b: Block): boolean => {
    const p = b.param;
    return p.type === 'tool_result' && !p.is_error && !state.hidden[b.path] && payloadChars(p) > o.prune.minChars;
  };
  // Cheap exit first: most renders add no bulky result at all.
  const last = state.turns.at(-1)!;
  const fresh = last.rounds.some((r) => isNew(last.index, r.index) && r.results.some(bulky));
  if (!fresh && !(prev && prev.turn < last.index)) return { state, decisions: [] };
  const summarized = new Set<BlockPath>();
  for (const s of state.summaries) for (const p of s.paths) summarized.add(p);
  /** Visible copies by content. */
  const copies = new Map<string, BlockPath>();
  const found: { path: BlockPath; sameAs: BlockPath }[] = [];
  for (const turn of state.turns) {
    for (const round of turn.rounds) {
      for (const b of round.results) {
        if (!bulky(b) || summarized.has(b.path)) continue;
        const key = contentKey(b.param as { content?: unknown });
        const copy = copies.get(key);
        if (copy === undefined) copies.set(key, b.path);
        else if (isNew(turn.index, round.index)) found.push({ path: b.path, sameAs: copy });
      }
    }
  }
  if (found.length === 0) return { state, decisions: [] };
  const records: HiddenRecord[] = found.map(({ path, sameAs }) => ({ ...hiddenRecord(state, path, 'economy', `identical to ${sameAs}, shown above`), sameAs }));
  const decisions: Decision[] = records.map((r) => {
    const b = ctx.tokens.tokens({ type: 'text', text: r.note });
    const block = findResult(state, r.path);
    return { type: 'prune', path: r.path, reason: 'economy', tokensRemoved: Math.max(0, (block ? ctx.tokens.tokens(block) : 0) - b) };
  });
  const next = produce(state, (draft) => {
    for (const r of records) draft.hidden[r.path] = castDraft(r);
  });
  return { state: next, decisions };
}

function findResult(state: TimelineState, path: BlockPath): unknown {
  for (const t of state.turns) for (const r of t.rounds) for (const b of r.results) if (b.path === path) return b.param;
  return undefined;
}

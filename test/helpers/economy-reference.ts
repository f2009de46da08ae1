/**
 * Reference implementations of the economy pass's incremental parts (issue 14): the definitions they were
 * made from, kept for the tests that compare them request by request. dedupeScan is the duplicates pass as it
 * was before it read the walk's indexes (render/dedupe.ts at 859039f): every result of the session scanned in
 * timeline order whenever a new bulky one arrives; firstChanceScan the first-chance filter as it was, with the
 * superseded payloads read from the whole analysis.
 */
import { castDraft, produce } from 'immer';
import type { PassContext } from '../../src/render/context.js';
import { partWorthIt, textOf } from '../../src/render/dedupe.js';
import { hiddenRecord, payloadChars } from '../../src/render/notes.js';
import { contentKey, firstChance, readFiles, supersededAfterScan } from '../../src/render/reuse.js';
import type { Decision } from '../../src/render/types.js';
import type { Block, BlockPath, HiddenRecord, TimelineState } from '../../src/timeline/types.js';

/**
 * Replaces every new tool result that repeats a visible earlier one by a note
 * pointing at it (economy only).
 */
export function dedupeScan(state: TimelineState, ctx: PassContext): { state: TimelineState; decisions: Decision[] } {
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
  /** Visible results of file reads, by file: where a partial re-read's text may be contained. */
  const reads = new Map<string, { path: BlockPath; text: string }[]>();
  const found: { path: BlockPath; sameAs: BlockPath; part: boolean }[] = [];
  for (const turn of state.turns) {
    for (const round of turn.rounds) {
      for (const b of round.results) {
        if (!bulky(b) || summarized.has(b.path)) continue;
        const key = contentKey(b.param as { content?: unknown });
        const copy = copies.get(key);
        if (copy !== undefined) {
          if (isNew(turn.index, round.index)) found.push({ path: b.path, sameAs: copy, part: false });
          continue;
        }
        const files = readFiles(round.response, b.id);
        const text = files.length > 0 ? textOf(b.param as { content?: unknown }) : undefined;
        if (text !== undefined && isNew(turn.index, round.index)) {
          const container = files.flatMap((f) => reads.get(f) ?? []).find((r) => r.text.length > text.length && r.text.includes(text));
          if (container && partWorthIt(state, ctx, container.path, b)) {
            found.push({ path: b.path, sameAs: container.path, part: true });
            continue;
          }
        }
        copies.set(key, b.path);
        if (text !== undefined) {
          for (const f of files) {
            const list = reads.get(f);
            if (list) list.push({ path: b.path, text });
            else reads.set(f, [{ path: b.path, text }]);
          }
        }
      }
    }
  }
  if (found.length === 0) return { state, decisions: [] };
  const records: HiddenRecord[] = found.map(({ path, sameAs, part }) => ({
    ...hiddenRecord(state, path, 'economy', `${part ? 'part of' : 'identical to'} ${sameAs}, shown above`),
    sameAs,
  }));
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

/** The scan the pass used (every result of the session; render/dedupe.ts now finds it by its path). */
function findResult(state: TimelineState, path: BlockPath): unknown {
  for (const t of state.turns) for (const r of t.rounds) for (const b of r.results) if (b.path === path) return b.param;
  return undefined;
}

/**
 * firstChance (render/reuse.ts) with the payloads superseded since read from the whole analysis
 * (supersededAfterScan): the definition the first-chance candidates are compared with.
 */
export function firstChanceScan(state: TimelineState, keepRounds: number): (b: { readonly path: BlockPath }) => boolean {
  return firstChance(state, keepRounds, supersededAfterScan);
}

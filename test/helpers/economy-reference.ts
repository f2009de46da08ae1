/**
 * Reference implementations of the economy pass's incremental parts (issue 14): the definitions they were
 * made from, kept for the tests that compare them request by request. dedupeScan is the duplicates pass as it
 * was before it read the walk's indexes (render/dedupe.ts at 859039f): every result of the session scanned in
 * timeline order whenever a new bulky one arrives; firstChanceScan the first-chance filter as it was, with the
 * superseded payloads read from the whole analysis.
 */
import { castDraft, produce } from 'immer';
import type { PassContext } from '../../src/render/context.js';
import { partWorthIt } from '../../src/render/dedupe.js';
import { hiddenRecord, payloadChars } from '../../src/render/notes.js';
import { supersededAfterScan } from '../../src/render/reuse.js';
import type { Decision } from '../../src/render/types.js';
import { parseTimelinePath } from '../../src/timeline/paths.js';
import type { Block, BlockPath, HiddenRecord, TimelineState } from '../../src/timeline/types.js';
import { callTargets } from '../../src/toolcache/targets.js';

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

/** The text of a result made only of text (string content or text parts), else undefined. */
function textOf(param: { readonly content?: unknown }): string | undefined {
  const c = param.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return undefined;
  let out = '';
  for (const part of c as { type?: string; text?: string }[]) {
    if (part.type !== 'text' || typeof part.text !== 'string') return undefined;
    out += part.text;
  }
  return out;
}

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

/** The files a read call names, for the call whose result has id `id` (none for writes and file-less calls). */
function readFiles(response: readonly Block[], id: string): readonly string[] {
  for (const c of response) {
    if (c.param.type !== 'tool_use' || c.param.id !== id) continue;
    const t = callTargets(c.param.name, c.param.input);
    return t.kind === 'read' ? t.files : [];
  }
  return [];
}

function findResult(state: TimelineState, path: BlockPath): unknown {
  for (const t of state.turns) for (const r of t.rounds) for (const b of r.results) if (b.path === path) return b.param;
  return undefined;
}

/**
 * firstChance (render/reuse.ts) with the payloads superseded since read from the whole analysis
 * (supersededAfterScan): the definition the first-chance candidates are compared with.
 */
export function firstChanceScan(state: TimelineState, keepRounds: number): (b: { readonly path: BlockPath }) => boolean {
  const prev = state.lastRender;
  const before: number[] = [];
  let n = 0;
  for (const t of state.turns) {
    before.push(n);
    n += t.rounds.length;
  }
  const prevRounds = prev ? (before[prev.turn - 1] ?? n) + Math.max(0, prev.round - 1) : 0;
  const fromOrdinal = prevRounds - keepRounds + 1;
  const superseded = supersededAfterScan(state, prevRounds);
  return (b) => {
    if (superseded.has(b.path)) return true;
    const loc = parseTimelinePath(b.path);
    if (!loc || loc.round === undefined) return true;
    return (before[loc.turn - 1] ?? 0) + loc.round >= fromOrdinal;
  };
}

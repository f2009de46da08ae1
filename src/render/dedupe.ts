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
 * A partial re-read is the same case: a new result of a read call whose text
 * is contained, byte for byte, in a visible earlier result of a read of the
 * same file (a Read with offset/limit after the whole file was read; the
 * numbered lines are the same bytes) becomes a note naming that copy ("part
 * of …"). Only results of the same file are searched, so the check costs one
 * substring search per earlier read of that file. Unlike an identical copy,
 * the earlier read is usually larger, and it now carries the partial read's
 * chance of being needed, so it stays visible where it would otherwise have
 * been pruned as superseded: the pointer is used only when keeping the
 * container costs less than sending the partial read and pruning the
 * container at the re-write the gate would pay ({@link partWorthIt}).
 *
 * Errors and results at or under `prune.minChars` are left alone, as are
 * copies that are hidden or inside a compaction summary.
 */
import { castDraft, produce } from 'immer';
import type { Block, BlockPath, HiddenRecord, TimelineState } from '../timeline/types.js';
import { callTargets } from '../toolcache/targets.js';
import type { PassContext } from './context.js';
import { expectedRemaining, priceChange } from './gate.js';
import { hiddenRecord, payloadChars } from './notes.js';
import { cacheStanding } from './projection.js';
import { reuseEstimates } from './reuse.js';
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

/**
 * Whether pointing a partial re-read at the visible read that contains it is
 * cheaper than sending it. Pointing: the container stays visible (it carries
 * the partial read's chance of being needed), read by every remaining
 * request. Sending: the partial is written once and read, and the container
 * stays too, unless nothing targets it any more (its own chance is 0, so the
 * gate weighs it again) and the gate prunes it at the re-write that causes. Prices from the profile, remaining requests as the gate
 * expects them (gate.ts).
 */
function partWorthIt(state: TimelineState, ctx: PassContext, containerPath: BlockPath, partial: Block): boolean {
  const { stream, entries } = cacheStanding(state, ctx);
  const at = stream.findIndex((x) => x.path === containerPath);
  if (at < 0) return false;
  const p = ctx.profile.prices;
  const remaining = expectedRemaining(state, ctx.options.expectedRemaining);
  const container = stream[at]!.tokens;
  const part = ctx.tokens.tokens(partial.param);
  const keepContainer = (container * p.cacheRead * remaining) / 1e6;
  // The gate weighs a warm payload again only once nothing targets it any more (its own p is 0: reuse.ts).
  const gate = priceChange(ctx.profile, entries, at, container, remaining);
  // Cold, every payload is weighed (for free): count the container as pruned, i.e. send the partial (no change).
  const weighedAgain = entries.length === 0 || (reuseEstimates(state).get(containerPath)?.p ?? 0) === 0;
  const containerInB = weighedAgain && gate.saving > gate.rewrite ? gate.rewrite : keepContainer;
  const sendPart = (part * (p.cacheWrite5m + p.cacheRead * remaining)) / 1e6;
  return keepContainer < sendPart + containerInB;
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

/**
 * The deterministic extractive summarizer: no network, no model, the same
 * bytes for the same input. Per turn it keeps the user's request, the tool
 * calls made (`Read src/a.ts ×3, Edit src/b.ts`), the failures, and the start
 * of the final answer. It is the default for tests and offline use, and the
 * fallback of the LLM summarizer, so compaction always has a summary.
 *
 * Staying under `maxTokens`: every turn starts at full detail; while the text
 * is too long, detail is removed in sweeps from the oldest turn to the newest
 * (full → brief → request only → omitted), so old turns lose detail first and
 * every turn keeps its request as long as possible. If even the shortest form
 * does not fit, the text is cut to fit.
 */
import { InvalidOptionError } from '../errors.js';
import { cl100kCount } from '../tokens/bpe.js';
import { tiktokenCounter, type TokenCounter } from '../tokens/counter.js';
import type { Turn } from '../timeline/types.js';
import { clip, digestTurn, type CallGroup, type TurnDigest } from './turn-digest.js';
import type { SummaryInput, SummaryOutput, SyncSummarizer } from './types.js';

/** Options of {@link extractiveSummarizer}. */
export interface ExtractiveOptions {
  /** Characters of the user's request kept at full detail (default 200). */
  readonly requestChars?: number;
  /** Characters of the final answer kept at full detail (default 300). */
  readonly answerChars?: number;
  /** Most call groups listed per turn at full detail (default 12). */
  readonly maxCalls?: number;
  /** Counts the summary against `maxTokens` (default: tiktoken cl100k, like the renderer). */
  readonly counter?: TokenCounter;
}

/** Detail levels, most to least. */
const FULL = 0;
const BRIEF = 1;
const REQUEST = 2;
const OMITTED = 3;

function calls(groups: readonly CallGroup[], max: number, withArgs: boolean): string {
  const merged = new Map<string, number>();
  for (const g of groups) {
    const key = withArgs && g.arg ? `${g.name} ${g.arg}` : g.name;
    merged.set(key, (merged.get(key) ?? 0) + g.count);
  }
  const items = [...merged].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k));
  const shown = items.slice(0, max);
  return items.length > max ? `${shown.join(', ')}, +${items.length - max} more` : shown.join(', ');
}

function section(d: TurnDigest, level: number, o: Required<Omit<ExtractiveOptions, 'counter'>>): string {
  const request = clip(d.request, level === FULL ? o.requestChars : level === BRIEF ? 100 : 60) || '(no text)';
  const lines = [`Turn ${d.index}: ${request}`];
  if (level === REQUEST) return `${lines[0]}\n`;
  if (d.calls.length > 0) lines.push(`  Tools: ${calls(d.calls, o.maxCalls, level === FULL)}`);
  if (d.errors.length > 0) {
    lines.push(
      level === FULL
        ? `  Errors: ${d.errors.map((e) => `${e.arg ? `${e.name} ${e.arg}` : e.name}: ${clip(e.message, 100)}`).join('; ')}`
        : `  Errors: ${d.errors.length}`,
    );
  }
  lines.push(`  Answer: ${d.answer === undefined ? '(none)' : clip(d.answer, level === FULL ? o.answerChars : 100)}`);
  return `${lines.join('\n')}\n`;
}

function omittedLine(turns: readonly number[]): string {
  if (turns.length === 0) return '';
  const first = turns[0]!;
  const last = turns.at(-1)!;
  return `${first === last ? `Turn ${first}` : `Turns ${first}–${last}`}: details omitted.\n`;
}

/** Cuts `text` to the longest prefix (on a character boundary) that counts at most `max` tokens (`tokens`: its count, when known). */
function cutToFit(text: string, max: number, counter: TokenCounter, tokens = counter.count(text)): string {
  if (tokens <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (counter.count(`${text.slice(0, mid)}…`) <= max) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : `${text.slice(0, lo)}…`;
}

/** A turn's section at one level, and its tokens once counted (cl100k). */
interface Section {
  readonly text: string;
  tokens?: number;
}

/** Digests per turn object (a turn never changes). */
const digests = new WeakMap<Turn, TurnDigest>();

function digestOf(turn: Turn): TurnDigest {
  let d = digests.get(turn);
  if (d === undefined) digests.set(turn, (d = digestTurn(turn)));
  return d;
}

/** Sections per turn object, by options and level, with their cl100k counts. */
const sectionsByTurn = new WeakMap<Turn, Map<string, Section>>();

function sectionFor(turn: Turn, level: number, o: Required<Omit<ExtractiveOptions, 'counter'>>): Section {
  let byKey = sectionsByTurn.get(turn);
  if (byKey === undefined) sectionsByTurn.set(turn, (byKey = new Map()));
  const key = `${o.requestChars},${o.answerChars},${o.maxCalls},${level}`;
  let entry = byKey.get(key);
  if (entry === undefined) byKey.set(key, (entry = { text: section(digestOf(turn), level, o) }));
  return entry;
}

/** The default options of {@link extractiveSummarizer}. */
const DEFAULTS = Object.freeze({ requestChars: 200, answerChars: 300, maxCalls: 12 });

/** Complete turns prepared so far per session (keyed by its first turn), and the last of them. */
const prepared = new WeakMap<object, { readonly count: number; readonly last: Turn }>();

/** Complete turns waiting before {@link prepareExtractive} prepares them, in one go. */
const PREPARE_BATCH = 4;

/**
 * Prepares what the default extractive summarizer (default options, cl100k)
 * will need of a state's complete turns: each turn's digest, full-detail
 * section and its count, kept per turn object. Called on every render that may
 * compact with that summarizer, it works once PREPARE_BATCH turns wait, so a
 * compaction mostly finds its turns' sections counted (counting them at once
 * was a third of a compaction). It only continues a session it has followed
 * from its start: a state rebuilt from a store or an older one is left to the
 * compaction, as before. The summary's bytes are the same either way.
 */
export function prepareExtractive(turns: readonly Turn[]): void {
  const complete = turns.length - 1;
  if (complete < 1) return;
  const slot = prepared.get(turns[0]!);
  let from: number;
  if (slot && slot.count <= complete && turns[slot.count - 1] === slot.last) from = slot.count;
  else if (complete <= PREPARE_BATCH) from = 0;
  else return;
  if (complete - from < PREPARE_BATCH) return;
  for (let t = from; t < complete; t++) {
    const entry = sectionFor(turns[t]!, FULL, DEFAULTS);
    entry.tokens ??= cl100kCount(entry.text);
  }
  prepared.set(turns[0]!, { count: complete, last: turns[complete - 1]! });
}

/**
 * The deterministic, synchronous summarizer.
 *
 * @example
 * const out = extractiveSummarizer().summarize({ fromTurn: 1, toTurn: 3, turns: state.turns.slice(0, 3), maxTokens: 800 });
 * out.text; // "[Summary of turns 1–3 …]\nTurn 1: Fix the failing test\n  Tools: Read src/a.ts ×3, Edit src/a.ts\n  Answer: …"
 */
export function extractiveSummarizer(options: ExtractiveOptions = {}): SyncSummarizer {
  const o = {
    requestChars: options.requestChars ?? DEFAULTS.requestChars,
    answerChars: options.answerChars ?? DEFAULTS.answerChars,
    maxCalls: options.maxCalls ?? DEFAULTS.maxCalls,
  };
  for (const [k, v] of Object.entries(o)) {
    if (!Number.isInteger(v) || v < 1) throw new InvalidOptionError(k, `must be a positive integer, got ${v}`);
  }
  let counter = options.counter;
  return {
    name: 'extractive',
    summarize(input: SummaryInput): SummaryOutput {
      if (!Number.isInteger(input.maxTokens) || input.maxTokens < 1) {
        throw new InvalidOptionError('maxTokens', `must be a positive integer, got ${input.maxTokens}`);
      }
      counter ??= tiktokenCounter();
      const c = counter;
      const range = input.fromTurn === input.toTurn ? `turn ${input.fromTurn}` : `turns ${input.fromTurn}–${input.toTurn}`;
      const header = `[Summary of ${range} (extractive). The originals stay readable: recall("turns/${input.fromTurn}/user/0") and the paths in notes.]\n`;
      // With cl100k (the default counter), a turn's sections and their counts are kept per turn object (a turn
      // never changes), so sections prepared ahead ({@link prepareExtractive}) or summarized before are not redone.
      const additive = c.count === cl100kCount;
      const digests = input.turns.map(digestOf);
      const levels = digests.map(() => FULL);
      // Each section built and counted once per level (compose asks for every section again).
      const sections = new Map<number, Section>();
      const entryOf = (i: number): Section => {
        const key = i * 4 + levels[i]!;
        let entry = sections.get(key);
        if (entry === undefined) {
          entry = additive ? sectionFor(input.turns[i]!, levels[i]!, o) : { text: section(digests[i]!, levels[i]!, o) };
          sections.set(key, entry);
        }
        return entry;
      };
      const sectionOf = (i: number): string => entryOf(i).text;
      const counts = new Map<string, number>();
      const countOf = (part: string): number => {
        let n = counts.get(part);
        if (n === undefined) counts.set(part, (n = c.count(part)));
        return n;
      };
      const cost = (i: number): number => {
        if (levels[i] === OMITTED) return 0;
        const entry = entryOf(i);
        entry.tokens ??= c.count(entry.text);
        return entry.tokens;
      };
      /** The text's parts: the header, the omitted turns' line, the sections (each ends with a line break). */
      const parts = (): string[] => {
        const omitted = digests.filter((_, i) => levels[i] === OMITTED).map((d) => d.index);
        const out = [header, omittedLine(omitted)];
        for (let i = 0; i < digests.length; i++) if (levels[i] !== OMITTED) out.push(sectionOf(i));
        return out.filter((p) => p !== '');
      };
      // The whole text's count, its last part trimmed or not. With cl100k (the default counter) it is the sum of
      // its parts' counts: each part ends with a line break and the next starts with "Turn", where the
      // pre-tokenizer always cuts (no piece runs from a line break into a letter), and BPE merges stay within a
      // piece. Any other counter counts the whole text.
      const countWhole = (ps: readonly string[], trimmed: boolean): number => {
        if (!additive) return c.count(trimmed ? ps.join('').trimEnd() : ps.join(''));
        let n = 0;
        for (let k = 0; k < ps.length; k++) n += trimmed && k === ps.length - 1 ? c.count(ps[k]!.trimEnd()) : countOf(ps[k]!);
        return n;
      };
      // Estimate with per-section counts (cheap, memoized), then confirm on the whole text (with a counter
      // other than cl100k, the whole may differ slightly from the sum).
      const fixed = countOf(header) + 12;
      let total = fixed + digests.reduce((n, _, i) => n + cost(i), 0);
      let composed = parts();
      sweep: for (let level = BRIEF; level <= OMITTED; level++) {
        for (let i = 0; i < digests.length; i++) {
          if (total <= input.maxTokens && countWhole(composed, false) <= input.maxTokens) break sweep;
          if (levels[i]! >= level) continue;
          total -= cost(i);
          levels[i] = level;
          total += cost(i);
          if (total <= input.maxTokens) composed = parts();
        }
      }
      composed = parts();
      const text = composed.join('').trimEnd();
      return { text: cutToFit(text, input.maxTokens, c, countWhole(composed, true)), by: 'extractive' };
    },
  };
}

/**
 * The plain text search over stored payloads: "what did that file say about
 * retries?" when the agent knows the topic but not the path. Deliberately
 * simple and deterministic: lower-cased term counts weighted by rarity
 * (tf-idf), a bonus for the whole query as a phrase, ties broken by path.
 */
import type { ContentBlockParam } from '../providers/anthropic-types.js';
import { blockText } from '../tokens/counter.js';
import type { BlockPath } from '../timeline/types.js';
import { comparePaths } from './paths.js';
import type { SearchHit } from './types.js';

/** The searchable text of a payload: the text the model would read. */
export function payloadText(payload: ContentBlockParam): string {
  return blockText(payload).text;
}

/** Lower-cased words of at least two characters (letters, digits, `_`), unique, in order. */
export function searchTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w.length >= 2);
  const unique = [...new Set(words)];
  // A one-letter query still means something: search for it as typed.
  if (unique.length === 0 && query.trim().length > 0) return [query.trim().toLowerCase()];
  return unique;
}

/** Occurrences of `term` in `text` (non-overlapping), capped: beyond a few dozen, more is not more relevant. */
function occurrences(text: string, term: string, cap = 50): number {
  let n = 0;
  for (let i = text.indexOf(term); i !== -1 && n < cap; i = text.indexOf(term, i + term.length)) n++;
  return n;
}

const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 120;

function snippetAt(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_BEFORE);
  const end = Math.min(text.length, at + length + SNIPPET_AFTER);
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/**
 * Ranks documents for a query.
 *
 * @param docs the searchable texts by path
 * @returns at most `limit` hits with a positive score, best first
 */
export function rank(docs: Iterable<{ readonly path: BlockPath; readonly text: string }>, query: string, limit = 5): SearchHit[] {
  const terms = searchTerms(query);
  if (terms.length === 0 || limit <= 0) return [];
  const phrase = query.trim().toLowerCase().replace(/\s+/g, ' ');
  const rows: { path: BlockPath; text: string; lower: string; tf: number[] }[] = [];
  const df = terms.map(() => 0);
  let n = 0;
  for (const doc of docs) {
    n++;
    const lower = doc.text.toLowerCase();
    const tf = terms.map((t) => occurrences(lower, t));
    if (tf.every((c) => c === 0)) continue;
    tf.forEach((c, i) => {
      if (c > 0) df[i]!++;
    });
    rows.push({ path: doc.path, text: doc.text, lower, tf });
  }
  const idf = df.map((d) => Math.log(1 + n / Math.max(1, d)));
  const hits: SearchHit[] = rows.map((row) => {
    let sum = 0;
    let matched = 0;
    let best = -1;
    row.tf.forEach((c, i) => {
      if (c === 0) return;
      matched++;
      sum += (1 + Math.log(c)) * idf[i]!;
      if (best === -1 || idf[i]! > idf[best]!) best = i;
    });
    const phraseAt = terms.length > 1 ? row.lower.indexOf(phrase) : -1;
    if (phraseAt !== -1) sum += 2 * Math.max(...idf);
    // Documents that match every term beat those that match one term often.
    const score = Math.round(sum * (matched / terms.length) * 1e4) / 1e4;
    const at = phraseAt !== -1 ? phraseAt : row.lower.indexOf(terms[best]!);
    const length = phraseAt !== -1 ? phrase.length : terms[best]!.length;
    return { path: row.path, score, snippet: snippetAt(row.text, at, length) };
  });
  hits.sort((a, b) => b.score - a.score || comparePaths(a.path, b.path));
  return hits.slice(0, limit);
}

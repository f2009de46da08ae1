/**
 * A counting-only cl100k_base tokenizer: the same pre-tokenizer regex and the
 * same byte-pair merges as js-tiktoken (so the same counts), without its costs.
 *
 * - One rank table (cl100k_base, ~1 MB of text) instead of js-tiktoken's main
 *   entry, which bundles every encoding (~5.6 MB).
 * - The rank map is built on the first count, not at import (about 40 ms,
 *   against 0.3–1.5 s for js-tiktoken's encoder), keyed by "binary strings"
 *   (one char per byte): an ASCII piece is its own key, no byte array joined
 *   with commas per lookup.
 * - Merges use a heap over a linked list: O(n log n) per piece instead of
 *   js-tiktoken's O(n²) rescans, which made a 4k-character CJK run (one long
 *   piece) take ~200 ms.
 * - Pieces that take several tokens are memoized (bounded).
 *
 * Uses only string operations: no Node built-ins, so it runs on
 * edge runtimes too.
 */
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let ranks: Map<string, number> | undefined;
/** The bytes (binary string) of each token, by rank: what a merged pair is looked up from. */
let tokenBytes: string[] = [];
/** Rank of each single byte (every byte is a token of cl100k). */
const byteRank = new Int32Array(256);
let pattern: RegExp | undefined;

/** Builds the rank map (binary string of the token's bytes → rank) once. */
function rankMap(): Map<string, number> {
  if (ranks) return ranks;
  const map = new Map<string, number>();
  const bytes: string[] = [];
  for (const line of cl100k.bpe_ranks.split('\n')) {
    if (!line) continue;
    const parts = line.split(' ');
    const offset = Number.parseInt(parts[1]!, 10);
    for (let i = 2; i < parts.length; i++) {
      const b = decodeBase64(parts[i]!);
      map.set(b, offset + i - 2);
      bytes[offset + i - 2] = b;
    }
  }
  for (let b = 0; b < 256; b++) byteRank[b] = map.get(String.fromCharCode(b)) ?? -1;
  tokenBytes = bytes;
  ranks = map;
  return map;
}

/**
 * Rank of the token two adjacent tokens merge into (NONE when their bytes are
 * not a token), memoized by the pair of ranks in an open-addressing table of
 * integers: a merge step is an integer probe, not a substring hashed. Bounded:
 * emptied when it is 3/4 full.
 */
const PAIR_BITS = 18;
const PAIR_SLOTS = 1 << PAIR_BITS;
const PAIR_MASK = PAIR_SLOTS - 1;
/** Slot keys: first rank + 1 (0 = empty) and second rank; the merged rank. */
const pairA = new Int32Array(PAIR_SLOTS);
const pairB = new Int32Array(PAIR_SLOTS);
const pairV = new Int32Array(PAIR_SLOTS);
let pairUsed = 0;

function pairRank(a: number, b: number, map: Map<string, number>): number {
  let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> (32 - PAIR_BITS);
  for (;;) {
    const k = pairA[h]!;
    if (k === 0) break;
    if (k === a + 1 && pairB[h] === b) return pairV[h]!;
    h = (h + 1) & PAIR_MASK;
  }
  const rank = map.get(tokenBytes[a]! + tokenBytes[b]!) ?? NONE;
  if (pairUsed >= (PAIR_SLOTS * 3) >> 2) {
    pairA.fill(0);
    pairUsed = 0;
    return rank;
  }
  pairA[h] = a + 1;
  pairB[h] = b;
  pairV[h] = rank;
  pairUsed++;
  return rank;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VALUE[B64.charCodeAt(i)] = i;

/** Base64 → binary string (one char per byte). `atob` is slow in Node and 100k tokens are decoded at start. */
function decodeBase64(s: string): string {
  let out = '';
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < s.length; i++) {
    const v = B64_VALUE[s.charCodeAt(i)]!;
    if (v < 0) break; // '=' padding
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((acc >> bits) & 0xff);
    }
  }
  return out;
}

/** The pre-tokenizer (cl100k's split pattern), compiled once. */
function splitter(): RegExp {
  return (pattern ??= new RegExp(cl100k.pat_str, 'gu'));
}

let stickyPattern: RegExp | undefined;

/**
 * The same pattern, sticky: `test` at a position moves `lastIndex` to the end
 * of the piece that starts there, without building a match array (the match
 * arrays and their strings were a third of what a session allocated). Every
 * character starts a piece (letters, numbers, whitespace and anything else
 * each have an alternative), so the pieces tile the text and each one starts
 * where the previous ended.
 */
function sticky(): RegExp {
  return (stickyPattern ??= new RegExp(cl100k.pat_str, 'yu'));
}

/** UTF-8 bytes of `s` as a binary string (one char per byte); ASCII comes back as is. Lone surrogates become U+FFFD, as TextEncoder does. */
export function utf8Binary(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      } else bytes.push(0xef, 0xbf, 0xbd);
    } else bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) out += String.fromCharCode(...bytes.slice(i, i + 4096));
  return out;
}

const NONE = 0x7fffffff;

/** Scratch space of {@link mergeCount}, grown on demand and reused (no allocation per piece). */
let ids = new Int32Array(256);
let pairs = new Int32Array(256);

/**
 * Tokens of one piece (a binary string) after byte-pair merging: repeatedly
 * merge the adjacent pair with the lowest rank (leftmost on ties) until no
 * pair is a token. Each part is held as its token's rank (a merged pair's
 * rank is the merged token's), so a pair is looked up by two integers; as in
 * tiktoken's own implementation, only the two pairs next to a merge are
 * looked up again, and finding the minimum is a scan over integers.
 */
function mergeCount(bytes: string, map: Map<string, number>): number {
  const n = bytes.length;
  if (n <= 1) return n;
  if (n > HEAP_ABOVE) return heapMergeCount(bytes, map);
  if (ids.length < n + 1) {
    ids = new Int32Array(2 * n + 2);
    pairs = new Int32Array(2 * n + 2);
  }
  const id = ids;
  const pr = pairs;
  for (let i = 0; i < n; i++) id[i] = byteRank[bytes.charCodeAt(i)]!;
  for (let i = 0; i < n - 1; i++) pr[i] = pairRank(id[i]!, id[i + 1]!, map);
  let m = n; // parts; part i is the token id[i]
  while (m > 1) {
    let min = NONE;
    let at = -1;
    for (let i = 0; i < m - 1; i++) {
      if (pr[i]! < min) {
        min = pr[i]!;
        at = i;
      }
    }
    if (at < 0) break;
    // Merge parts at and at+1 into the token of rank min.
    id[at] = min;
    for (let i = at + 1; i < m - 1; i++) id[i] = id[i + 1]!;
    for (let i = at; i < m - 2; i++) pr[i] = pr[i + 1]!;
    m--;
    pr[at] = at < m - 1 ? pairRank(min, id[at + 1]!, map) : NONE;
    if (at > 0) pr[at - 1] = pairRank(id[at - 1]!, min, map);
  }
  return m;
}

/** Pieces longer than this (a CJK run, a long identifier) merge with a heap: O(n log n) instead of O(n²). */
const HEAP_ABOVE = 256;

/** The same merge order as {@link mergeCount}, with a min-heap of candidate pairs and lazy invalidation. */
function heapMergeCount(bytes: string, map: Map<string, number>): number {
  const n = bytes.length;
  // Linked list of parts: part i spans [i, next[i]) and is the token tok[i]; merged-away parts are dead.
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const tok = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    tok[i] = byteRank[bytes.charCodeAt(i)]!;
  }
  const alive = new Uint8Array(n).fill(1);
  // Heap of (rank, start, end) triples; ordered by rank, then start (leftmost first).
  const hr: number[] = [];
  const hs: number[] = [];
  const he: number[] = [];
  const less = (a: number, b: number): boolean => hr[a]! < hr[b]! || (hr[a] === hr[b] && hs[a]! < hs[b]!);
  const swap = (a: number, b: number): void => {
    let t = hr[a]!;
    hr[a] = hr[b]!;
    hr[b] = t;
    t = hs[a]!;
    hs[a] = hs[b]!;
    hs[b] = t;
    t = he[a]!;
    he[a] = he[b]!;
    he[b] = t;
  };
  const push = (i: number): void => {
    const j = next[i]!;
    if (j >= n) return;
    const end = next[j]!;
    const rank = pairRank(tok[i]!, tok[j]!, map);
    if (rank === NONE) return;
    hr.push(rank);
    hs.push(i);
    he.push(end);
    let k = hr.length - 1;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!less(k, p)) break;
      swap(k, p);
      k = p;
    }
  };
  const pop = (): void => {
    swap(0, hr.length - 1);
    hr.pop();
    hs.pop();
    he.pop();
    let k = 0;
    for (;;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let m = k;
      if (l < hr.length && less(l, m)) m = l;
      if (r < hr.length && less(r, m)) m = r;
      if (m === k) break;
      swap(k, m);
      k = m;
    }
  };
  for (let i = 0; i < n - 1; i++) push(i);
  let parts = n;
  while (hr.length > 0) {
    const i = hs[0]!;
    const end = he[0]!;
    const rank = hr[0]!;
    pop();
    const j = next[i]!;
    // Stale: part i was merged away, or its pair no longer ends where it did when pushed.
    if (!alive[i] || j >= n || next[j] !== end) continue;
    alive[j] = 0;
    next[i] = end;
    tok[i] = rank;
    if (end < n) prev[end] = i;
    parts--;
    push(i);
    if (prev[i]! >= 0) push(prev[i]!);
  }
  return parts;
}

/** Multi-token pieces seen recently (identifiers, paths, base64 runs repeat a lot). */
const pieceMemo = new Map<string, number>();
const PIECE_MEMO_MAX = 50_000;

function pieceTokens(piece: string, map: Map<string, number>): number {
  if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
  const hit = pieceMemo.get(piece);
  if (hit !== undefined) return hit;
  const bytes = utf8Binary(piece);
  const n = map.has(bytes) ? 1 : mergeCount(bytes, map);
  if (pieceMemo.size >= PIECE_MEMO_MAX) pieceMemo.clear();
  pieceMemo.set(piece, n);
  return n;
}

/**
 * Exact cl100k_base token count of `text` (special-token strings count as
 * plain text, like js-tiktoken's `encode(text, [], [])`).
 */
export function cl100kCount(text: string): number {
  if (text.length === 0) return 0;
  const map = rankMap();
  const re = sticky();
  let n = 0;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    if (!re.test(text)) return n + countFrom(text, at, map); // never: every character starts a piece
    const end = re.lastIndex;
    // A one-character ASCII piece is one token: no string made for it.
    n += end - at === 1 && text.charCodeAt(at) < 0x80 ? 1 : pieceTokens(text.slice(at, end), map);
    at = end;
  }
  return n;
}

/** The match-array loop from `at` (a fallback the sticky loop never needs). */
function countFrom(text: string, at: number, map: Map<string, number>): number {
  const re = splitter();
  re.lastIndex = at;
  let n = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) n += pieceTokens(m[0], map);
  return n;
}

/** Van der Corput (base 2) point j in [0, 1): any first 2^m points are an even grid, in a scattered order. */
function vanDerCorput(j: number): number {
  let x = 0;
  let f = 0.5;
  for (let k = j; k > 0; k >>= 1, f /= 2) if (k & 1) x += f;
  return x;
}

/** Relative standard error the estimate stops at (the ±2 % target is then about 3 standard errors). */
const TARGET_SE = 0.005;
/** A piece this long is sampled by chunks in an estimate, not merged whole (a chunk boundary costs at most one token in 512 characters). */
const LONG_PIECE = 512;
/** At most this many characters are sampled, whatever the error (an 870k-character page). */
const MAX_SAMPLED = 24_576;

/**
 * Estimated cl100k_base count of a long text from evenly spread sample
 * windows of `width` characters. Each window counts the whole pre-tokenizer
 * pieces that start inside it (the split is re-synchronized a little before
 * the window, so these are the pieces the full text has), except a piece of
 * 512 characters or more (one 4 MB word), which counts where it overlaps the
 * window at the rate of one aligned chunk of it; the estimate is the sampled
 * tokens per character times the length.
 *
 * Adaptive: it starts with `windows` windows and doubles them (the new ones
 * in between the old, a van der Corput sequence) until the standard error of
 * the ratio is under 0.6 %, so uniform text (a base64 blob) stops early and
 * mixed text (code with a base64 tail, a log with JSON dumps) gets the samples
 * it needs. When the samples would cover half the text, it counts
 * exactly instead. Deterministic: the same text always gives the same count.
 */
export function cl100kEstimate(text: string, windows = 64, width = 48): number {
  const length = text.length;
  if (length <= 2 * windows * width) return cl100kCount(text);
  const map = rankMap();
  const re = sticky();
  const RESYNC = 24;
  const tw: number[] = [];
  const cw: number[] = [];
  const pos: number[] = [];
  let tokens = 0;
  let chars = 0;
  let target = windows;
  for (let j = 0; ; j++) {
    if (j === target) {
      // Standard error of the ratio, by successive differences over the windows in text order (the
      // estimator for systematic samples: a change of content between two windows counts once,
      // not as variance of every window).
      const r = tokens / Math.max(1, chars);
      const order = pos
        .slice(0, j)
        .map((p, k) => [p, k] as const)
        .sort((a, b) => a[0] - b[0]);
      let ss = 0;
      for (let k = 1; k < j; k++) {
        const a = order[k - 1]![1];
        const b = order[k]![1];
        ss += (tw[b]! - r * cw[b]! - (tw[a]! - r * cw[a]!)) ** 2;
      }
      const se = Math.sqrt(ss / (2 * (j - 1)) / j) / Math.max(1e-9, chars / j) / Math.max(1e-9, r);
      if (chars > 0 && (se <= TARGET_SE || 2 * target * width > MAX_SAMPLED)) break;
      if (2 * target * width * 2 > length) return cl100kCount(text);
      target *= 2;
    }
    const from = Math.floor(vanDerCorput(j) * (length - width));
    pos.push(from);
    const to = from + width;
    let t = 0;
    let c = 0;
    // Split a slice, not the text: a piece that runs on for megabytes (one 4 MB word) would make every
    // window's regex walk to its end. A piece cut at the slice's end is at least LONG_PIECE long.
    const start0 = Math.max(0, from - RESYNC);
    const slice = text.slice(start0, Math.min(length, to + LONG_PIECE));
    // The pieces tile the slice (see sticky()): each starts where the previous ended.
    for (let at = 0; at < slice.length; ) {
      re.lastIndex = at;
      if (!re.test(slice)) break; // never: every character starts a piece
      const end = re.lastIndex;
      const start = start0 + at;
      const length = end - at;
      const from0 = at;
      at = end;
      if (start >= to) break;
      if (length >= LONG_PIECE) {
        // A long piece counts only where it overlaps the window, at the rate of one aligned chunk of
        // it (merging the whole piece is O(n log n) with a large constant: seconds for a 1M-byte word).
        const lo = Math.max(start, from);
        const overlap = Math.min(start + length, to) - lo;
        if (overlap <= 0) continue;
        const k = Math.min(Math.floor((lo - start) / LONG_PIECE) * LONG_PIECE, length - LONG_PIECE);
        t += (overlap * pieceTokens(slice.slice(from0 + k, from0 + k + LONG_PIECE), map)) / LONG_PIECE;
        c += overlap;
        continue;
      }
      if (start < from) continue;
      t += length === 1 && slice.charCodeAt(from0) < 0x80 ? 1 : pieceTokens(slice.slice(from0, end), map);
      c += length;
    }
    tw.push(t);
    cw.push(c);
    tokens += t;
    chars += c;
  }
  return Math.round((tokens / chars) * length);
}

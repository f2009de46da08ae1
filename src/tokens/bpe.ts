/**
 * A counting-only cl100k_base tokenizer: the same pre-tokenizer split and the
 * same byte-pair merges as js-tiktoken (so the same counts), without its costs.
 *
 * - One rank table (cl100k_base) instead of js-tiktoken's main entry, which
 *   bundles every encoding (~5.6 MB). It is built on the first count, not at
 *   import: the token bytes go into one byte array, indexed by an
 *   open-addressing hash table of integers (no string per token).
 * - The pre-tokenizer is hand-written, not the regex: it walks the text's
 *   code units and tiles it into the pieces cl100k's pattern matches
 *   (contractions, letter runs with one leading non-letter, digit groups of
 *   1–3, punctuation runs, the whitespace rules), classifying characters by
 *   table (the Unicode classes of a character outside ASCII are asked of the
 *   regex engine once and remembered). No string is made per piece.
 * - A piece's UTF-8 bytes are hashed in a scratch buffer: a piece that is one
 *   token is a table probe; pieces of several tokens are memoized by their
 *   bytes (bounded); merges look a pair up by the two tokens' ranks.
 * - A piece is merged as independent segments cut between two bytes that no
 *   token holds side by side (no merge can ever join them): about half the
 *   character boundaries of CJK and base64. Long segments merge with a heap:
 *   O(n log n), allocation-free.
 * - Texts of 64 code units or more are counted in chunks (lines, and a
 *   numbered line's content after its number) cut where the pattern always
 *   cuts; each chunk's count is memoized by its code units (bounded): a file
 *   read again after an edit, or the next compaction summary, finds most of
 *   its lines there.
 *
 * No Node built-ins, so it runs on edge runtimes too.
 */
import cl100k from 'js-tiktoken/ranks/cl100k_base';

// THE RANK TABLE

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
const TABLE_BITS = 18;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const NONE = 0x7fffffff;

/** Slot s holds [hash, rank + 1] at 2s, 2s + 1 (rank + 1 = 0: empty), probed linearly from the slot of a byte string's hash. Undefined until the first count. */
let table: Int32Array | undefined;
/** Bytes of every token; token r is pool[tokStart[r], tokEnd[r]). */
let pool = new Uint8Array(0);
let tokStart = new Int32Array(0);
let tokEnd = new Int32Array(0);
/** FNV-1a hash of each token's bytes (compared before the bytes). */
let tokHash = new Int32Array(0);
/** Bytes of the longest token. */
let maxTokenBytes = 0;
/** Rank of each single byte (every byte is a token of cl100k). */
const byteRank = new Int32Array(256);
/**
 * Whether the byte pair (a << 8 | b) occurs inside some token. Where it does not, no merge can ever join the
 * two bytes (the merged part would be a token holding them), so a piece is merged as independent segments
 * cut there: about half the character boundaries of CJK text and of base64 are such cuts (6,611 of the 65,536
 * pairs occur in cl100k's tokens).
 */
const BIGRAM = new Uint8Array(65536);
/** Rank of the token of two bytes (a << 8 | b), or NONE: the first merges of every piece, without the pair memo's probes. Allocated by build(). */
let BYTE_PAIR = new Int32Array(0);

const slotOf = (h: number): number => Math.imul(h, 0x9e3779b1) >>> (32 - TABLE_BITS);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VALUE[B64.charCodeAt(i)] = i;

/**
 * Parses the rank file ("prefix offset token token …" lines, tokens in
 * base64, ranks consecutive from the offset) straight into the byte pool
 * and the hash table, once.
 */
function build(): void {
  if (table) return;
  pairs4 = new Int32Array(PAIR_SLOTS << 2);
  memoSlots = new Int32Array(1 << MEMO_BITS);
  memoHash = new Int32Array(MEMO_MAX);
  memoStart = new Int32Array(MEMO_MAX);
  memoLen = new Int32Array(MEMO_MAX);
  memoCount = new Int32Array(MEMO_MAX);
  memoPool = new Uint8Array(1 << 20);
  BYTE_PAIR = new Int32Array(65536).fill(NONE);
  const s = cl100k.bpe_ranks;
  const bytes = new Uint8Array(s.length);
  const ranks: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let maxRank = -1;
  let p = 0;
  let i = 0;
  while (i < s.length) {
    // prefix field
    while (i < s.length && s.charCodeAt(i) !== 32 && s.charCodeAt(i) !== 10) i++;
    if (i >= s.length || s.charCodeAt(i) === 10) {
      i++;
      continue;
    }
    i++;
    let rank = 0;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) rank = rank * 10 + s.charCodeAt(i++) - 48;
    while (i < s.length && s.charCodeAt(i) !== 10) {
      i++; // the space before a token
      const start = p;
      let acc = 0;
      let bits = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c === 32 || c === 10) break;
        const v = c < 128 ? B64_VALUE[c]! : -1;
        if (v < 0) continue; // '=' padding
        acc = ((acc << 6) | v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          bytes[p++] = (acc >> bits) & 0xff;
        }
      }
      ranks.push(rank);
      starts.push(start);
      ends.push(p);
      if (rank > maxRank) maxRank = rank;
      rank++;
    }
    i++;
  }
  pool = bytes;
  tokStart = new Int32Array(maxRank + 1);
  tokEnd = new Int32Array(maxRank + 1);
  tokHash = new Int32Array(maxRank + 1);
  const t = new Int32Array(2 << TABLE_BITS);
  for (let k = 0; k < ranks.length; k++) {
    const r = ranks[k]!;
    tokStart[r] = starts[k]!;
    tokEnd[r] = ends[k]!;
    const h = hashBytes(bytes, starts[k]!, ends[k]!);
    tokHash[r] = h;
    let slot = slotOf(h);
    while (t[2 * slot + 1] !== 0) slot = (slot + 1) & TABLE_MASK;
    t[2 * slot] = h;
    t[2 * slot + 1] = r + 1;
    if (ends[k]! - starts[k]! === 1) byteRank[bytes[starts[k]!]!] = r;
    if (ends[k]! - starts[k]! === 2) BYTE_PAIR[(bytes[starts[k]!]! << 8) | bytes[starts[k]! + 1]!] = r;
    if (ends[k]! - starts[k]! > maxTokenBytes) maxTokenBytes = ends[k]! - starts[k]!;
    for (let i = starts[k]! + 1; i < ends[k]!; i++) BIGRAM[(bytes[i - 1]! << 8) | bytes[i]!] = 1;
  }
  table = t;
}

function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
  return h;
}

/** Rank of the token whose bytes are b[0, len) (hash h), or -1. */
function rankOf(b: Uint8Array, from: number, len: number, h: number): number {
  const t = table!;
  const to = from + len;
  for (let slot = slotOf(h); ; slot = (slot + 1) & TABLE_MASK) {
    const e = t[2 * slot + 1]!;
    if (e === 0) return -1;
    if (t[2 * slot] !== h) continue;
    const r = e - 1;
    let k = tokStart[r]!;
    if (tokEnd[r]! - k !== len) continue;
    let i = from;
    while (i < to && pool[k] === b[i]) {
      i++;
      k++;
    }
    if (i === to) return r;
  }
}

/** Whether the ASCII text t[from, to) (hash h) is one token. */
function asciiIsToken(t: string, from: number, to: number, h: number): boolean {
  const tab = table!;
  const len = to - from;
  for (let slot = slotOf(h); ; slot = (slot + 1) & TABLE_MASK) {
    const e = tab[2 * slot + 1]!;
    if (e === 0) return false;
    if (tab[2 * slot] !== h) continue;
    const r = e - 1;
    let k = tokStart[r]!;
    if (tokEnd[r]! - k !== len) continue;
    let i = from;
    while (i < to && pool[k] === t.charCodeAt(i)) {
      i++;
      k++;
    }
    if (i === to) return true;
  }
}

/** Rank of the token whose bytes are token a's then token b's, or NONE. FNV-1a runs on from a's hash. */
function concatRank(a: number, b: number): number {
  const a0 = tokStart[a]!;
  const b0 = tokStart[b]!;
  const b1 = tokEnd[b]!;
  const la = tokEnd[a]! - a0;
  const len = la + b1 - b0;
  let h = tokHash[a]!;
  for (let k = b0; k < b1; k++) h = Math.imul(h ^ pool[k]!, FNV_PRIME);
  const t = table!;
  for (let slot = slotOf(h); ; slot = (slot + 1) & TABLE_MASK) {
    const e = t[2 * slot + 1]!;
    if (e === 0) return NONE;
    if (t[2 * slot] !== h) continue;
    const r = e - 1;
    const k0 = tokStart[r]!;
    if (tokEnd[r]! - k0 !== len) continue;
    let i = 0;
    while (i < la && pool[k0 + i] === pool[a0 + i]) i++;
    if (i < la) continue;
    while (i < len && pool[k0 + i] === pool[b0 + i - la]) i++;
    if (i === len) return r;
  }
}

/**
 * Rank of the token two adjacent tokens merge into (NONE when their bytes are
 * not a token), memoized by the pair of ranks in an open-addressing table of
 * integers. Bounded: emptied when it is 3/4 full.
 */
const PAIR_BITS = 18;
const PAIR_SLOTS = 1 << PAIR_BITS;
const PAIR_MASK4 = (PAIR_SLOTS << 2) - 1;
/** Slot s holds [first rank + 1 (0 = empty), second rank, merged rank, unused] at 4s (one cache line per probe); allocated by build(). */
let pairs4 = new Int32Array(0);
let pairUsed = 0;

function pairRank(a: number, b: number): number {
  const p = pairs4;
  let h = ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> (32 - PAIR_BITS)) << 2;
  for (;;) {
    const k = p[h]!;
    if (k === 0) break;
    if (k === a + 1 && p[h + 1] === b) return p[h + 2]!;
    h = (h + 4) & PAIR_MASK4;
  }
  const rank = concatRank(a, b);
  if (pairUsed >= (PAIR_SLOTS * 3) >> 2) {
    p.fill(0);
    pairUsed = 0;
    return rank;
  }
  p[h] = a + 1;
  p[h + 1] = b;
  p[h + 2] = rank;
  pairUsed++;
  return rank;
}

// THE PIECE MEMO

/** Pieces of several tokens seen recently (identifiers, paths, CJK phrases repeat a lot), keyed by their bytes. */
const MEMO_BITS = 16;
const MEMO_MASK = (1 << MEMO_BITS) - 1;
const MEMO_MAX = (3 << MEMO_BITS) >> 2;
/** Pieces longer than this many bytes are not memoized. */
const MEMO_PIECE_MAX = 1024;
// Allocated by build() (about 2 MB): importing the module allocates nothing big.
let memoSlots = new Int32Array(0);
let memoHash = new Int32Array(0);
let memoStart = new Int32Array(0);
let memoLen = new Int32Array(0);
let memoCount = new Int32Array(0);
let memoPool = new Uint8Array(0);
let memoUsed = 0;
let memoBytes = 0;

const memoSlotOf = (h: number): number => Math.imul(h, 0x85ebca6b) >>> (32 - MEMO_BITS);

/** The memoized count of b[0, len) (hash h), or 0. */
function memoGet(b: Uint8Array, from: number, len: number, h: number): number {
  for (let slot = memoSlotOf(h); ; slot = (slot + 1) & MEMO_MASK) {
    const e = memoSlots[slot]!;
    if (e === 0) return 0;
    const m = e - 1;
    if (memoHash[m] !== h || memoLen[m] !== len) continue;
    let k = memoStart[m]!;
    let i = from;
    const to = from + len;
    while (i < to && memoPool[k] === b[i]) {
      i++;
      k++;
    }
    if (i === to) return memoCount[m]!;
  }
}

function memoPut(b: Uint8Array, from: number, len: number, h: number, count: number): void {
  if (len > MEMO_PIECE_MAX) return;
  if (memoUsed >= MEMO_MAX || memoBytes + len > memoPool.length) {
    memoSlots.fill(0);
    memoUsed = 0;
    memoBytes = 0;
  }
  let slot = memoSlotOf(h);
  while (memoSlots[slot] !== 0) slot = (slot + 1) & MEMO_MASK;
  const m = memoUsed++;
  memoSlots[slot] = m + 1;
  memoHash[m] = h;
  memoStart[m] = memoBytes;
  memoLen[m] = len;
  memoCount[m] = count;
  for (let i = 0; i < len; i++) memoPool[memoBytes + i] = b[from + i]!;
  memoBytes += len;
}

// MERGING

/** Scratch space of the merges, grown on demand and reused (no allocation per piece). */
let ids = new Int32Array(64);
let prs = new Int32Array(64);
let nexts = new Int32Array(64);
let prevs = new Int32Array(64);
let heapKey = new Float64Array(192);
let heapEnd = new Int32Array(192);
let heapSize = 0;

/** Pieces of more bytes than this merge with a heap (O(n log n)); shorter ones rescan for the minimum (less overhead). */
const HEAP_ABOVE = 24;

/**
 * Tokens of the piece b[0, n) after byte-pair merging: repeatedly merge the
 * adjacent pair with the lowest rank (leftmost on ties) until no pair is a
 * token. Each part is held as its token's rank (a merged pair's rank is the
 * merged token's), so a pair is looked up by two integers; as in tiktoken's
 * own implementation, only the pairs next to a merge are looked up again.
 */
function mergeCount(b: Uint8Array, n: number): number {
  if (n <= 1) return n;
  if (ids.length < n + 1) {
    ids = new Int32Array(2 * n + 2);
    prs = new Int32Array(2 * n + 2);
    nexts = new Int32Array(2 * n + 2);
    prevs = new Int32Array(2 * n + 2);
  }
  let count = 0;
  let from = 0;
  for (let i = 1; i < n; i++) {
    if (BIGRAM[(b[i - 1]! << 8) | b[i]!] === 0) {
      count += segmentCount(b, from, i, from === 0);
      from = i;
    }
  }
  return count + segmentCount(b, from, n, from === 0);
}

/** Tokens of the segment b[from, to), which no merge crosses; `whole` when it is the whole piece (known not to be one token). */
function segmentCount(b: Uint8Array, from: number, to: number, whole: boolean): number {
  const n = to - from;
  if (n <= 1) return n;
  if (whole) return mergeRange(b, from, n);
  if (n <= 7) {
    // Packed exactly into two integers (4 bits of length, 8 a byte) and looked up in a small direct-mapped
    // cache: most segments are this short (a CJK character or two, a few base64 letters) and repeat, and the
    // big tables' probes are cache misses.
    let k1 = n;
    let k2 = 0;
    for (let i = 0; i < n; i++) {
      const x = b[from + i]!;
      if (i < 3) k1 |= x << (4 + 8 * i);
      else k2 |= x << (8 * (i - 3));
    }
    const slot = (Math.imul(k1 ^ Math.imul(k2, 0x85ebca6b), 0x9e3779b1) >>> (32 - SEGMENT_BITS)) << 2;
    if (segmentCache[slot] === k1 && segmentCache[slot + 1] === k2) return segmentCache[slot + 2]!;
    const count = rankOf(b, from, n, hashBytes(b, from, to)) >= 0 ? 1 : mergeRange(b, from, n);
    segmentCache[slot] = k1;
    segmentCache[slot + 1] = k2;
    segmentCache[slot + 2] = count;
    return count;
  }
  const h = hashBytes(b, from, to);
  if (rankOf(b, from, n, h) >= 0) return 1;
  if (n < SEGMENT_MEMO_MIN) return mergeRange(b, from, n);
  // Segments repeat far more than whole pieces (a CJK word between two cuts, a base64 letter pair).
  const hit = memoGet(b, from, n, h);
  if (hit > 0) return hit;
  const count = mergeRange(b, from, n);
  memoPut(b, from, n, h, count);
  return count;
}

/** Segments of at least this many bytes are memoized (shorter ones merge faster than they are looked up). */
const SEGMENT_MEMO_MIN = 4;
/** The direct-mapped cache of segments of up to 7 bytes: [bytes 0–2 and length, bytes 3–6, tokens, unused] per slot. */
const SEGMENT_BITS = 13;
const segmentCache = new Int32Array(4 << SEGMENT_BITS);

/** Tokens of b[from, from + n) merged (n ≥ 2). */
function mergeRange(b: Uint8Array, from: number, n: number): number {
  if (n > HEAP_ABOVE) return heapMergeCount(b, from, n);
  const id = ids;
  const pr = prs;
  for (let i = 0; i < n; i++) id[i] = byteRank[b[from + i]!]!;
  for (let i = 0; i < n - 1; i++) pr[i] = BYTE_PAIR[(b[from + i]! << 8) | b[from + i + 1]!]!;
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
    pr[at] = at < m - 1 ? pairRank(min, id[at + 1]!) : NONE;
    if (at > 0) pr[at - 1] = pairRank(id[at - 1]!, min);
  }
  return m;
}

const START_SPAN = 4294967296; // heap key = rank × 2^32 + start: ordered by rank, then leftmost

function heapPush(key: number, end: number): void {
  let k = heapSize++;
  while (k > 0) {
    const p = (k - 1) >> 1;
    if (heapKey[p]! <= key) break;
    heapKey[k] = heapKey[p]!;
    heapEnd[k] = heapEnd[p]!;
    k = p;
  }
  heapKey[k] = key;
  heapEnd[k] = end;
}

function heapPop(): void {
  const size = --heapSize;
  const key = heapKey[size]!;
  const end = heapEnd[size]!;
  let k = 0;
  for (;;) {
    let c = 2 * k + 1;
    if (c >= size) break;
    if (c + 1 < size && heapKey[c + 1]! < heapKey[c]!) c++;
    if (heapKey[c]! >= key) break;
    heapKey[k] = heapKey[c]!;
    heapEnd[k] = heapEnd[c]!;
    k = c;
  }
  heapKey[k] = key;
  heapEnd[k] = end;
}

/** The same merge order as {@link mergeCount}: a linked list of parts and a min-heap of candidate pairs, invalidated lazily. */
function heapMergeCount(b: Uint8Array, from: number, n: number): number {
  if (heapKey.length < 3 * n) {
    heapKey = new Float64Array(6 * n);
    heapEnd = new Int32Array(6 * n);
  }
  // Part i spans bytes [i, next[i]) and is the token tok[i]; a merged-away part has tok -1.
  const next = nexts;
  const prev = prevs;
  const tok = ids;
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    tok[i] = byteRank[b[from + i]!]!;
  }
  heapSize = 0;
  for (let i = 0; i < n - 1; i++) {
    const r = BYTE_PAIR[(b[from + i]! << 8) | b[from + i + 1]!]!;
    if (r !== NONE) heapPush(r * START_SPAN + i, i + 2);
  }
  let parts = n;
  while (heapSize > 0) {
    const key = heapKey[0]!;
    const end = heapEnd[0]!;
    heapPop();
    const rank = Math.floor(key / START_SPAN);
    const i = key - rank * START_SPAN;
    if (tok[i] === -1) continue;
    const j = next[i]!;
    // Stale: its pair no longer ends where it did when pushed.
    if (j >= n || next[j] !== end) continue;
    tok[j] = -1;
    next[i] = end;
    tok[i] = rank;
    if (end < n) prev[end] = i;
    parts--;
    if (end < n) {
      const r = pairRank(rank, tok[end]!);
      if (r !== NONE) heapPush(r * START_SPAN + i, next[end]!);
    }
    const h = prev[i]!;
    if (h >= 0) {
      const r = pairRank(tok[h]!, rank);
      if (r !== NONE) heapPush(r * START_SPAN + h, end);
    }
  }
  return parts;
}

// THE PRE-TOKENIZER

/** Character classes of cl100k's pattern: letter, number, whitespace other than \r \n, \r or \n, anything else. */
const L = 1;
const N = 2;
const S = 3;
const NL = 4;
const P = 5;
const ASCII_CLASS = new Uint8Array(128).fill(P);
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = ASCII_CLASS[c + 32] = L;
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = N;
for (const c of [9, 11, 12, 32]) ASCII_CLASS[c] = S;
ASCII_CLASS[10] = ASCII_CLASS[13] = NL;
/** Classes of BMP characters outside ASCII, asked of the regex engine on first sight (0: not yet). */
const BMP_CLASS = new Uint8Array(65536);
const ASTRAL_CLASS = new Map<number, number>();
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
const IS_SPACE = /^\s$/u;

function classOf(ch: string): number {
  return IS_LETTER.test(ch) ? L : IS_NUMBER.test(ch) ? N : IS_SPACE.test(ch) ? S : P;
}

/** Width (code units) of the character {@link classAt} classified last. */
let width = 1;

/** Class of the character (code point) at i; sets {@link width}. A lone surrogate is a character of class P, as in the `u` regex. */
function classAt(t: string, i: number, end: number): number {
  const c = t.charCodeAt(i);
  width = 1;
  if (c < 128) return ASCII_CLASS[c]!;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
    const d = t.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) {
      width = 2;
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      let k = ASTRAL_CLASS.get(cp);
      if (k === undefined) {
        k = classOf(String.fromCodePoint(cp));
        if (ASTRAL_CLASS.size < 4096) ASTRAL_CLASS.set(cp, k);
      }
      return k;
    }
  }
  const k = BMP_CLASS[c]!;
  if (k !== 0) return k;
  return (BMP_CLASS[c] = c >= 0xd800 && c <= 0xdfff ? P : classOf(String.fromCharCode(c)));
}

/**
 * End of the piece cl100k's pattern matches at i, reading no further than
 * `end` (treated as the end of the text):
 * `'s|'t|'re|'ve|'m|'ll|'d` (any case) | `[^\r\n\p{L}\p{N}]?\p{L}+` |
 * `\p{N}{1,3}` | ` ?[^\s\p{L}\p{N}]+[\r\n]*` | `\s*[\r\n]+` | `\s+(?!\S)` | `\s+`,
 * the first alternative that matches.
 */
function pieceEnd(t: string, i: number, end: number): number {
  const c = t.charCodeAt(i);
  if (c === 39 && i + 1 < end) {
    const d = t.charCodeAt(i + 1) | 0x20;
    if (d === 0x73 || d === 0x74 || d === 0x6d || d === 0x64) return i + 2; // 's 't 'm 'd
    if (i + 2 < end) {
      const e = t.charCodeAt(i + 2) | 0x20;
      if ((d === 0x72 && e === 0x65) || (d === 0x76 && e === 0x65) || (d === 0x6c && e === 0x6c)) return i + 3; // 're 've 'll
    }
  }
  const k0 = c < 128 ? ASCII_CLASS[c]! : classAt(t, i, end);
  let j = c < 128 ? i + 1 : i + width;
  if (k0 === L) return letters(t, j, end);
  if (k0 !== NL && k0 !== N && j < end) {
    const d = t.charCodeAt(j);
    if (d < 128 ? ((d | 32) - 97) >>> 0 < 26 : classAt(t, j, end) === L) return letters(t, d < 128 ? j + 1 : j + width, end);
  }
  if (k0 === N) {
    for (let k = 1; k < 3 && j < end; k++) {
      const d = t.charCodeAt(j);
      if (d < 128) {
        if ((d - 48) >>> 0 >= 10) break;
        j++;
      } else if (classAt(t, j, end) === N) j += width;
      else break;
    }
    return j;
  }
  if (k0 === P) return punctuation(t, j, end);
  if (c === 32 && j < end && classAt(t, j, end) === P) return punctuation(t, j + width, end);
  // Whitespace (every whitespace character is one code unit).
  let lastNewline = -1;
  for (j = i; j < end; j++) {
    const u = t.charCodeAt(j);
    const k = u < 128 ? ASCII_CLASS[u]! : classAt(t, j, end);
    if (k === NL) lastNewline = j;
    else if (k !== S) break;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (j >= end || j - i === 1) return j;
  return j - 1;
}

function letters(t: string, j: number, end: number): number {
  while (j < end) {
    const c = t.charCodeAt(j);
    if (c < 128) {
      if (((c | 32) - 97) >>> 0 >= 26) break; // an ASCII letter: (c | 32) in a–z
      j++;
    } else if (classAt(t, j, end) === L) j += width;
    else break;
  }
  return j;
}

function punctuation(t: string, j: number, end: number): number {
  while (j < end) {
    const c = t.charCodeAt(j);
    if (c < 128) {
      if (ASCII_CLASS[c] !== P) break;
      j++;
    } else if (classAt(t, j, end) === P) j += width;
    else break;
  }
  while (j < end) {
    const c = t.charCodeAt(j);
    if (c !== 10 && c !== 13) break;
    j++;
  }
  return j;
}

// COUNTING

/** The direct-mapped cache of short ASCII pieces: [packed characters 0–3 and length, characters 4–7, tokens, unused] per slot. */
const HOT_BITS = 13;
const hot = new Int32Array(4 << HOT_BITS);

/** UTF-8 bytes of the piece being counted. */
let buf = new Uint8Array(1024);

/** UTF-8 bytes of t[from, to) into {@link buf}; lone surrogates become U+FFFD, as TextEncoder does. Returns the byte length. */
function encode(t: string, from: number, to: number): number {
  if (buf.length < 3 * (to - from)) buf = new Uint8Array(6 * (to - from));
  const b = buf;
  let n = 0;
  for (let i = from; i < to; i++) {
    let c = t.charCodeAt(i);
    if (c < 0x80) b[n++] = c;
    else if (c < 0x800) {
      b[n++] = 0xc0 | (c >> 6);
      b[n++] = 0x80 | (c & 63);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < to ? t.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        b[n++] = 0xf0 | (c >> 18);
        b[n++] = 0x80 | ((c >> 12) & 63);
        b[n++] = 0x80 | ((c >> 6) & 63);
        b[n++] = 0x80 | (c & 63);
      } else {
        b[n++] = 0xef;
        b[n++] = 0xbf;
        b[n++] = 0xbd;
      }
    } else {
      b[n++] = 0xe0 | (c >> 12);
      b[n++] = 0x80 | ((c >> 6) & 63);
      b[n++] = 0x80 | (c & 63);
    }
  }
  return n;
}

/** Tokens of the piece t[from, to). */
function pieceTokens(t: string, from: number, to: number): number {
  // An ASCII piece is its own bytes: hashed and looked up from the text. One of up to 8 characters is packed
  // into two integers (exactly: 4 bits for its length, 7 a character) and looked up in a small direct-mapped
  // cache first, which stays in the CPU's cache: no probe of the big table for the common pieces.
  const len = to - from;
  let h = FNV_OFFSET;
  let k1 = len;
  let k2 = 0;
  let i = from;
  for (; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c >= 0x80) break;
    h = Math.imul(h ^ c, FNV_PRIME);
    const at = i - from;
    if (at < 4)
      k1 |= c << (4 + 7 * at); // the length (2–8) takes bits 0–3
    else k2 |= c << (7 * (at - 4));
  }
  let n: number;
  if (i === to) {
    let slot = -1;
    if (len <= 8) {
      slot = (Math.imul(k1 ^ Math.imul(k2, 0x85ebca6b), 0x9e3779b1) >>> (32 - HOT_BITS)) << 2;
      if (hot[slot] === k1 && hot[slot + 1] === k2) return hot[slot + 2]!;
    }
    let count = 1;
    if (!asciiIsToken(t, from, to, h)) {
      n = encode(t, from, to);
      count = memoGet(buf, 0, n, h);
      if (count === 0) {
        count = mergeCount(buf, n);
        memoPut(buf, 0, n, h, count);
      }
    }
    if (slot >= 0) {
      hot[slot] = k1;
      hot[slot + 1] = k2;
      hot[slot + 2] = count;
    }
    return count;
  } else {
    n = encode(t, from, to);
    // A piece longer than the longest token (a CJK sentence) is neither a token nor worth memoizing whole:
    // its segments are memoized.
    if (n > maxTokenBytes) return mergeCount(buf, n);
    h = hashBytes(buf, 0, n);
    if (rankOf(buf, 0, n, h) >= 0) return 1;
  }
  const hit = memoGet(buf, 0, n, h);
  if (hit > 0) return hit;
  const count = mergeCount(buf, n);
  memoPut(buf, 0, n, h, count);
  return count;
}

/** UTF-8 bytes of `s` as a binary string (one char per byte); ASCII comes back as is. Lone surrogates become U+FFFD, as TextEncoder does. */
export function utf8Binary(s: string): string {
  const n = encode(s, 0, s.length);
  let out = '';
  for (let i = 0; i < n; i += 4096) out += String.fromCharCode(...buf.subarray(i, Math.min(n, i + 4096)));
  return out;
}

/**
 * Exact cl100k_base token count of `text` (special-token strings count as
 * plain text, like js-tiktoken's `encode(text, [], [])`).
 */
export function cl100kCount(text: string): number {
  const length = text.length;
  if (length === 0) return 0;
  build();
  const n = length < CHUNK_TEXT_MIN ? rangeCount(text, 0, length) : chunkedCount(text, length);
  if (buf.length > SCRATCH_KEEP || heapKey.length > SCRATCH_KEEP) releaseScratch();
  return n;
}

/** Tokens of t[from, to) as if it were the whole text (the pre-tokenizer reads nothing at or after `to`). */
function rangeCount(t: string, from: number, to: number): number {
  let n = 0;
  for (let at = from; at < to; ) {
    const end = pieceEnd(t, at, to);
    n += end - at === 1 && t.charCodeAt(at) < 0x80 ? 1 : pieceTokens(t, at, end);
    at = end;
  }
  return n;
}

// THE CHUNK MEMO

/**
 * Texts of at least this many code units are counted chunk by chunk, each chunk's count memoized by its code
 * units: lines come back far more often than whole texts do (a file read again after an edit, the same log
 * line, a summary's sections), and a chunk found in the memo costs one pass to hash and one to compare.
 *
 * A chunk ends where the pre-tokenizer always cuts, whatever comes before or after, so a text's count is the
 * sum of its chunks' counts, each counted as a text of its own:
 * - after a line break followed by a run of spaces/tabs (maybe empty) and then a character that is neither
 *   whitespace nor outside ASCII, or the end of the text: no piece holds "\n" and then a character that is
 *   not whitespace (a letter's prefix excludes \r \n, punctuation only takes line breaks after it), and the
 *   whitespace piece ending in that "\n" cannot reach past it (`\s*[\r\n]+` ends at the run's last line
 *   break and is tried before the other whitespace rules);
 * - before a tab that follows an ASCII digit (line-numbered files: the content after the number is memoized
 *   whatever its line number): the digit's piece is a digit group, which ends at any non-digit.
 * The pattern has no lookbehind, so the pieces after a cut do not depend on what is before it, and the pieces
 * before it read nothing after it (the lookahead of `\s+(?!\S)` stops at the run's end, before the cut).
 * Proven against js-tiktoken in test/tokens/bpe.test.ts.
 */
const CHUNK_TEXT_MIN = 64;
/** Chunks of at least this many code units are memoized (shorter ones count about as fast as they are looked up). */
const CHUNK_MIN = 12;
/** Longer chunks are counted, not memoized (a minified file, a base64 blob: one line that rarely comes back). */
const CHUNK_MAX = 4096;
const CHUNK_BITS = 16;
const CHUNK_MASK = (1 << CHUNK_BITS) - 1;
/** Entries and code units the chunk memo holds before it is emptied. */
const CHUNK_ENTRIES = (3 << CHUNK_BITS) >> 2;
const CHUNK_UNITS = 1 << 21;
let chunkSlots = new Int32Array(0);
let chunkHash = new Int32Array(0);
let chunkStart = new Int32Array(0);
let chunkLen = new Int32Array(0);
let chunkCount = new Int32Array(0);
let chunkPool = new Uint16Array(0);
let chunkUsed = 0;
let chunkUnits = 0;

/** Whether t[p, …) starts with spaces/tabs then a character that is neither whitespace nor outside ASCII, or only spaces/tabs (p follows a "\n"). */
function cutAfterNewline(t: string, p: number, length: number): boolean {
  for (; p < length; p++) {
    const c = t.charCodeAt(p);
    if (c === 32 || c === 9 || c === 11 || c === 12) continue;
    return c !== 10 && c !== 13 && c < 0x80;
  }
  return true;
}

function chunkedCount(t: string, length: number): number {
  if (chunkSlots.length === 0) {
    chunkSlots = new Int32Array(1 << CHUNK_BITS);
    chunkHash = new Int32Array(CHUNK_ENTRIES);
    chunkStart = new Int32Array(CHUNK_ENTRIES);
    chunkLen = new Int32Array(CHUNK_ENTRIES);
    chunkCount = new Int32Array(CHUNK_ENTRIES);
    chunkPool = new Uint16Array(CHUNK_UNITS);
  }
  let n = 0;
  for (let at = 0; at < length; ) {
    let h = FNV_OFFSET;
    let i = at;
    for (; i < length; i++) {
      const c = t.charCodeAt(i);
      if (c === 9 && i > at && (t.charCodeAt(i - 1) - 48) >>> 0 < 10) break;
      h = Math.imul(h ^ c, FNV_PRIME);
      if (c === 10 && cutAfterNewline(t, i + 1, length)) {
        i++;
        break;
      }
    }
    const len = i - at;
    n += len <= SHORT_CHUNK ? shortChunkTokens(t, at, i) : len < CHUNK_MIN || len > CHUNK_MAX ? rangeCount(t, at, i) : chunkTokens(t, at, len, h);
    at = i;
  }
  return n;
}

/** Chunks of up to this many code units are looked up whole in {@link shortChunks}. */
const SHORT_CHUNK = 8;
/** The direct-mapped cache of short ASCII chunks, keyed exactly as {@link hot}'s pieces: [units 0–3 and length, units 4–7, tokens, unused] per slot. */
const shortChunks = new Int32Array(4 << HOT_BITS);

/**
 * Tokens of the chunk t[from, to) of up to 8 code units, from a small direct-mapped cache when it is ASCII: a
 * numbered line's number (`"  1234"`: three pieces to pre-tokenize and look up, one lookup here; a file's numbers
 * come back in every file read) or a short line (`"  }"`). About a tenth of a numbered file's characters, and a
 * third of its pieces.
 */
function shortChunkTokens(t: string, from: number, to: number): number {
  let k1 = to - from;
  let k2 = 0;
  let any = 0;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    any |= c;
    const at = i - from;
    if (at < 4)
      k1 |= c << (4 + 7 * at); // the length (1–8) takes bits 0–3
    else k2 |= c << (7 * (at - 4));
  }
  if (any >= 0x80) return rangeCount(t, from, to);
  const slot = (Math.imul(k1 ^ Math.imul(k2, 0x85ebca6b), 0x27d4eb2f) >>> (32 - HOT_BITS)) << 2;
  if (shortChunks[slot] === k1 && shortChunks[slot + 1] === k2) return shortChunks[slot + 2]!;
  const count = rangeCount(t, from, to);
  shortChunks[slot] = k1;
  shortChunks[slot + 1] = k2;
  shortChunks[slot + 2] = count;
  return count;
}

/** Tokens of the chunk t[at, at + len) (hash h): from the memo, else counted and remembered. */
function chunkTokens(t: string, at: number, len: number, h: number): number {
  for (let slot = Math.imul(h, 0x9e3779b1) >>> (32 - CHUNK_BITS); ; slot = (slot + 1) & CHUNK_MASK) {
    const e = chunkSlots[slot]!;
    if (e === 0) {
      const count = rangeCount(t, at, at + len);
      if (chunkUsed >= CHUNK_ENTRIES || chunkUnits + len > CHUNK_UNITS) {
        chunkSlots.fill(0);
        chunkUsed = 0;
        chunkUnits = 0;
        return count;
      }
      const m = chunkUsed++;
      chunkSlots[slot] = m + 1;
      chunkHash[m] = h;
      chunkStart[m] = chunkUnits;
      chunkLen[m] = len;
      chunkCount[m] = count;
      const pool = chunkPool;
      for (let k = 0; k < len; k++) pool[chunkUnits + k] = t.charCodeAt(at + k);
      chunkUnits += len;
      return count;
    }
    const m = e - 1;
    if (chunkHash[m] !== h || chunkLen[m] !== len) continue;
    const pool = chunkPool;
    let k = chunkStart[m]!;
    let i = at;
    const to = at + len;
    while (i < to && pool[k] === t.charCodeAt(i)) {
      i++;
      k++;
    }
    if (i === to) return chunkCount[m]!;
  }
}

/** Scratch arrays grown past this many elements (by one very long piece) are let go after the count. */
const SCRATCH_KEEP = 1 << 16;

function releaseScratch(): void {
  if (buf.length > SCRATCH_KEEP) buf = new Uint8Array(1024);
  if (ids.length > SCRATCH_KEEP) {
    ids = new Int32Array(64);
    prs = new Int32Array(64);
    nexts = new Int32Array(64);
    prevs = new Int32Array(64);
  }
  if (heapKey.length > SCRATCH_KEEP) {
    heapKey = new Float64Array(192);
    heapEnd = new Int32Array(192);
  }
}

/** Van der Corput (base 2) point j in [0, 1): any first 2^m points are an even grid, in a scattered order. */
function vanDerCorput(j: number): number {
  let x = 0;
  let f = 0.5;
  for (let k = j; k > 0; k >>= 1, f /= 2) if (k & 1) x += f;
  return x;
}

/** Radical inverse of j in base 3, in [0, 1): the second coordinate of a Halton sequence, spread independently of {@link vanDerCorput}. */
function radicalInverse3(j: number): number {
  let x = 0;
  let f = 1 / 3;
  for (let k = j; k > 0; k = (k - (k % 3)) / 3, f /= 3) x += (k % 3) * f;
  return x;
}

// THE ESTIMATE

/**
 * Classes of the estimate's linear model (one code unit each): a–z, A–Z, 0–9, space, \r or \n, other ASCII
 * whitespace, other ASCII, U+0080–U+07FF (2 UTF-8 bytes), other BMP (3 bytes: CJK, kana, Hangul …), surrogate.
 */
export const MODEL_CLASSES = 10;
const MODEL_ASCII = new Uint8Array(128).fill(6);
for (let c = 97; c <= 122; c++) MODEL_ASCII[c] = 0;
for (let c = 65; c <= 90; c++) MODEL_ASCII[c] = 1;
for (let c = 48; c <= 57; c++) MODEL_ASCII[c] = 2;
MODEL_ASCII[32] = 3;
MODEL_ASCII[10] = MODEL_ASCII[13] = 4;
MODEL_ASCII[9] = MODEL_ASCII[11] = MODEL_ASCII[12] = 5;
/**
 * The class model: tokens a code unit adds, by the class of the previous code unit (row) and its own
 * (column): a least-squares fit (ridge 1) on 48-character windows of every payload kind
 * (test/tokens/fit-model.ts). The cheaper of the estimate's two models (~2.5 ns a character); a model is
 * only a control variate: a poor fit on some text costs samples, never accuracy.
 */
// biome-ignore format: one row per previous class
const CLASS_WEIGHTS = new Float64Array([
  0.072, 0.766, 0.854, 0.22, 1.389, 0, 0.718, 0, 0, 0,
  1.1, 0.485, 0.986, 0.913, 1.649, 0, 1.091, 0.749, 0, 0,
  1.294, 1.04, 0.227, 0.694, 1.45, 0, 1.143, 0, 0, 0,
  0.52, -0.744, 1.235, 0.214, 0, 0, 0.705, 0.292, 2.975, 0.973,
  0.359, 0.54, 0.554, 0.381, -1.09, 1.081, 1.556, 0, 1.76, 0,
  -0.465, 0, 0, 0, 0, 0.409, 0.76, 0, 0, 0,
  0.476, 0.054, 1.083, 0.223, 0.12, 0, 0.194, 1.205, 0, 0,
  0, 0, 1.299, 0.463, 0, 0, 1.962, 0.96, 0, 0,
  0, 0, 0, -0.813, -0.256, 0, 0, 0, 1.171, 0,
  0, 0, 0, 0.186, 0, 0, 0, 0, 0, 0.973,
]);
/**
 * The code model: the class pairs again, fitted only on text that is cheap to count exactly (code, numbered and
 * tab-indented code, JSON, logs, prose and their mix; test/tokens/fit-model.ts), which the class model's weights,
 * pulled by base64 and CJK windows, fit less well: the standard error at 64 windows goes from 1.63 to 0.76 % on
 * line-numbered code (a read tool's view of a file), 1.30 to 0.91 % on code. Rows and columns of classes outside
 * ASCII are 0: on such text the class model is the better one. Same pass and cost as the class model.
 */
// biome-ignore format: one row per previous class
const CODE_WEIGHTS = new Float64Array([
  0.065, -0.211, 0.613, 0.05, 1.021, 0, 0.703, 0, 0, 0,
  0.953, 0.142, 1.04, 1.205, 0, 0, 0.742, 0, 0, 0,
  1.35, 0, 0.287, 0.631, -0.096, 0.86, 1.012, 0, 0, 0,
  0.695, -0.141, 1.34, 0.134, 0, 0, 0.73, 0, 0, 0,
  0.787, 0.038, 0, 0.803, -0.219, 1.104, 0.983, 0, 0, 0,
  0.065, 0, 0, 0.008, 0.15, 0.396, 1, 0, 0, 0,
  0.655, -0.016, 1.038, 0.21, 0.075, 0, 0.189, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/**
 * The token model's class-pair weights (fitted together with {@link EXTRA_WEIGHTS}, so not the class
 * model's).
 */
// biome-ignore format: one row per previous class
const MODEL_WEIGHTS = new Float64Array([
  0, 0.047, 0.067, -0.324, 0.365, 0, -0.006, 0, 0, 0,
  0.295, 0.134, 0.122, -0.082, 0.423, 0, 0.056, 0.486, 0, 0,
  0.213, 0.111, 0.234, -0.112, 0.346, 0.403, 0.072, 0, 0, 0,
  0.419, -0.018, 0.364, 0.14, 0, 0, 0.516, 0.685, 0.455, 0.27,
  -0.197, -0.023, -0.114, -0.056, -0.177, 0.539, 0.396, 0, 0.507, 0,
  -0.432, 0, 0, 0.239, -0.19, 0.26, 0.432, 0, 0, 0,
  0.202, 0.059, 0.187, -0.336, -0.09, 0, 0.132, 0.84, 0, 0,
  0, 0, 0.029, -0.286, 0, 0, 0.353, 0.535, 0, 0,
  0, 0, 0, -0.78, 0.061, 0, 0, 0, 0.488, 0,
  0, 0, 0, -0.433, 0, 0, 0, 0, 0, 0.27,
]);
/**
 * Features of the model beyond the class pairs, one per code unit: for an ASCII unit, which of four token
 * facts hold (bit 0: it and the previous unit are one token; bit 1: the previous two are; bit 2: it and the
 * previous two are; bit 3: the three before it are), entries 0–15; for a unit outside ASCII, the tokens of
 * its UTF-8 bytes alone (1–3: entries 16–18), plus entry 19 when it and the previous unit are one token and
 * entry 20 when it and the previous two are. What they add: base64 and CJK windows, whose tokens the class
 * pairs cannot tell apart (a random letter pair is or is not a token; a CJK character is one token or three),
 * vary with them (test/tokens/fit-model.ts prints the standard errors).
 */
export const MODEL_EXTRA = 21;
// biome-ignore format: fitted with MODEL_WEIGHTS
const EXTRA_WEIGHTS = new Float64Array([
  0.889, -0.041, 0.914, 0.455, 0, -0.439, 0.102, -0.098, 0.521, 0.236, 0.936, 0.042, 0, 0, 0, 0.043,
  0.51, 1.511, 2.515, -0.948, -0.287,
]);
/** The models' class-pair weights by pair of ASCII code units (previous × 128 + current), built on the first estimate: no class lookups in the scans. */
let classPairWeights = new Float32Array(0);
let codePairWeights = new Float32Array(0);
let asciiPairWeights: Float32Array | undefined;
/** Whether two ASCII code units (a × 128 + b) are one token. */
let ascii2 = new Uint8Array(0);
/** Whether three ASCII code units (a × 2^14 + b × 128 + c) are one token: a bit set. */
let ascii3 = new Int32Array(0);
/** Per BMP code unit outside ASCII: the tokens of its UTF-8 bytes alone (1–3; 0: not yet known; a lone surrogate's are U+FFFD's). */
const unitInfo = new Uint8Array(65536);
/**
 * The tokens of 2 or 3 BMP code units not all ASCII, as a one-hash Bloom filter of 2^20 bits keyed by the
 * units (and their number): read without a branch on the data (a CJK character's neighbours are too random to
 * predict), and a false positive now and then only adds a fixed bit to the model's features of those units.
 */
const BLOOM_BITS = 20;
let bloom = new Int32Array(0);

const bloomBit = (k1: number, k2: number): number => Math.imul(k1 ^ Math.imul(k2, 0x27d4eb2f), 0x165667b1) >>> (32 - BLOOM_BITS);

/** The model's tables (once, on the first estimate): class-pair weights by ASCII pair, and the tokens of 2 and 3 BMP code units. */
function buildModel(): Float32Array {
  if (asciiPairWeights) return asciiPairWeights;
  build();
  const w = new Float32Array(128 * 128);
  const wc = new Float32Array(128 * 128);
  const wk = new Float32Array(128 * 128);
  for (let p = 0; p < 128; p++) {
    for (let c = 0; c < 128; c++) {
      w[(p << 7) | c] = MODEL_WEIGHTS[MODEL_ASCII[p]! * MODEL_CLASSES + MODEL_ASCII[c]!]!;
      wc[(p << 7) | c] = CLASS_WEIGHTS[MODEL_ASCII[p]! * MODEL_CLASSES + MODEL_ASCII[c]!]!;
      wk[(p << 7) | c] = CODE_WEIGHTS[MODEL_ASCII[p]! * MODEL_CLASSES + MODEL_ASCII[c]!]!;
    }
  }
  classPairWeights = wc;
  codePairWeights = wk;
  const a2 = new Uint8Array(128 * 128);
  const a3 = new Int32Array((128 * 128 * 128) >> 5);
  const bl = new Int32Array(1 << (BLOOM_BITS - 5));
  const u = [0, 0, 0];
  for (let r = 0; r < tokStart.length; r++) {
    // The token's UTF-8 as at most 3 BMP code units; anything else (a partial character, astral, longer) is skipped.
    let k = 0;
    let ok = true;
    const e = tokEnd[r]!;
    for (let i = tokStart[r]!; i < e; ) {
      const x = pool[i]!;
      let c: number;
      let need: number;
      if (x < 0x80) {
        c = x;
        need = 0;
      } else if (x >= 0xc2 && x < 0xe0) {
        c = x & 31;
        need = 1;
      } else if (x >= 0xe0 && x < 0xf0) {
        c = x & 15;
        need = 2;
      } else {
        ok = false;
        break;
      }
      if (i + need >= e || k === 3) {
        ok = false;
        break;
      }
      for (let j = 1; j <= need; j++) {
        const y = pool[i + j]!;
        if ((y & 0xc0) !== 0x80) ok = false;
        c = (c << 6) | (y & 63);
      }
      if (!ok) break;
      u[k++] = c;
      i += need + 1;
    }
    if (!ok || k < 2) continue;
    if ((u[0]! | u[1]! | (k === 3 ? u[2]! : 0)) < 128) {
      if (k === 2) a2[(u[0]! << 7) | u[1]!] = 1;
      else {
        const bit = (u[0]! << 14) | (u[1]! << 7) | u[2]!;
        a3[bit >> 5]! |= 1 << (bit & 31);
      }
      continue;
    }
    const bit = bloomBit((u[0]! << 16) | u[1]!, (k === 3 ? u[2]! : 0) | (k << 16));
    bl[bit >> 5]! |= 1 << (bit & 31);
  }
  bloom = bl;
  ascii2 = a2;
  ascii3 = a3;
  return (asciiPairWeights = w);
}

/** Tokens of a BMP code unit's UTF-8 bytes alone (1–3; a lone surrogate as U+FFFD), remembered per unit: a function of the unit only. */
function unitTokens(c: number): number {
  const k = unitInfo[c]!;
  if (k !== 0) return k;
  const n = Math.max(1, Math.min(3, cl100kCount(String.fromCharCode(c))));
  unitInfo[c] = n;
  return n;
}

/**
 * Whether units a, b (a ≥ 0: none before the text) are one token; for units not all ASCII, whether the Bloom
 * filter of such tokens holds them (a false positive now and then: the feature is a function of the units all
 * the same, which is all a model needs).
 */
function pairToken(a: number, b: number): number {
  if (a < 0) return 0;
  if ((a | b) < 128) return ascii2[(a << 7) | b]!;
  const bit = bloomBit((a << 16) | b, 2 << 16);
  return (bloom[bit >> 5]! >>> (bit & 31)) & 1;
}

/** Whether units a, b, c (a ≥ 0: none before the text) are one token (as {@link pairToken}: by the filter when not all ASCII). */
function tripleToken(a: number, b: number, c: number): number {
  if (a < 0) return 0;
  if ((a | b | c) < 128) {
    const bit = (a << 14) | (b << 7) | c;
    return (ascii3[bit >> 5]! >>> (bit & 31)) & 1;
  }
  const bit = bloomBit((a << 16) | b, c | (3 << 16));
  return (bloom[bit >> 5]! >>> (bit & 31)) & 1;
}

/**
 * The class model's tokens of t[from, to): a sum over code units of a weight by the pair (previous code
 * unit's class, its class), the previous unit being the text's own (a newline before the start), so the
 * model of a text is exactly the sum of its parts' models. About 2.5 ns a character for ASCII.
 */
export function classModelTokens(t: string, from: number, to: number): number {
  buildModel();
  return pairModelTokens(t, from, to, classPairWeights, CLASS_WEIGHTS);
}

/** The code model's tokens of t[from, to) ({@link CODE_WEIGHTS}; additive like the class model, at the same cost). */
export function codeModelTokens(t: string, from: number, to: number): number {
  buildModel();
  return pairModelTokens(t, from, to, codePairWeights, CODE_WEIGHTS);
}

/** A class-pair model's tokens of t[from, to): its weights by pair of ASCII units (`ascii`) and by pair of classes. */
function pairModelTokens(t: string, from: number, to: number, ascii: Float32Array, weights: Float64Array): number {
  let p = from > 0 ? t.charCodeAt(from - 1) : 10;
  let m = 0;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    if ((c | p) < 128) m += ascii[(p << 7) | c]!;
    else m += weights[modelClass(p) * MODEL_CLASSES + modelClass(c)]!;
    p = c;
  }
  return m;
}

/**
 * The token model's tokens of t[from, to): a sum over code units of a weight by the pair (previous code unit's
 * class, its class) and of the weights of its token features ({@link MODEL_EXTRA}), everything about a unit
 * read from the text itself (its previous units being the text's own; before the start: a newline for the
 * class, nothing for the tokens), so the model of a text is exactly the sum of its parts' models. About 4 ns
 * a character for ASCII.
 */
export function modelTokens(t: string, from: number, to: number): number {
  const w2 = buildModel();
  const a2 = ascii2;
  const a3 = ascii3;
  const wx = EXTRA_WEIGHTS;
  const info = unitInfo;
  const bl = bloom;
  let p = from > 0 ? t.charCodeAt(from - 1) : -1;
  let pp = from > 1 ? t.charCodeAt(from - 2) : -1;
  // The token facts of the previous unit: bit 1 (its pair), bit 3 (its triple), as they enter the next unit's feature.
  let carry = (from > 1 ? pairToken(pp, p) << 1 : 0) | (from > 2 ? tripleToken(t.charCodeAt(from - 3), pp, p) << 3 : 0);
  let m = 0;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    let pc: number;
    let tc: number;
    if ((c | p | pp) < 128 && pp >= 0) {
      // ASCII, two units before it: the common case, without calls.
      const key = (pp << 14) | (p << 7) | c;
      pc = a2[key & 0x3fff]!;
      tc = (a3[key >> 5]! >>> (key & 31)) & 1;
      m += w2[key & 0x3fff]! + wx[pc | (tc << 2) | carry]!;
    } else if (c >= 128 && p >= 0) {
      // Outside ASCII (CJK, Cyrillic, emoji halves), with a unit before it.
      const u = info[c]! || unitTokens(c);
      // Read from the filter alone, without branches on the data (a CJK character's pairs are too random to predict).
      const b2 = bloomBit((p << 16) | c, 2 << 16);
      pc = (bl[b2 >> 5]! >>> (b2 & 31)) & 1;
      const b3 = bloomBit((pp << 16) | p, c | (3 << 16));
      tc = pp >= 0 ? (bl[b3 >> 5]! >>> (b3 & 31)) & 1 : 0;
      const kc = c < 0x800 ? 7 : (c & 0xf800) === 0xd800 ? 9 : 8;
      m += MODEL_WEIGHTS[modelClass(p) * MODEL_CLASSES + kc]! + wx[15 + u]! + pc * wx[19]! + tc * wx[20]!;
    } else {
      pc = pairToken(p, c);
      tc = pp < 0 ? 0 : tripleToken(pp, p, c);
      m += MODEL_WEIGHTS[modelClass(p < 0 ? 10 : p) * MODEL_CLASSES + modelClass(c)]!;
      if (c < 128) m += wx[pc | (tc << 2) | carry]!;
      else m += wx[15 + unitTokens(c)]! + pc * wx[19]! + tc * wx[20]!;
    }
    carry = (pc << 1) | (tc << 3);
    pp = p;
    p = c;
  }
  return m;
}

/**
 * The model's features of t[from, to) added into `f` (MODEL_CLASSES² class pairs, then MODEL_EXTRA token
 * features): what {@link modelTokens} weighs, for the fit of its weights (test/tokens/fit-model.ts) and the
 * tests.
 */
export function modelFeatures(t: string, from: number, to: number, f: Float64Array): void {
  buildModel();
  const base = MODEL_CLASSES * MODEL_CLASSES;
  let p = from > 0 ? t.charCodeAt(from - 1) : -1;
  let pp = from > 1 ? t.charCodeAt(from - 2) : -1;
  let pair = from > 1 ? pairToken(pp, p) : 0;
  let triple = from > 2 ? tripleToken(t.charCodeAt(from - 3), pp, p) : 0;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    const pc = pairToken(p, c);
    const tc = pp < 0 ? 0 : tripleToken(pp, p, c);
    f[modelClass(p < 0 ? 10 : p) * MODEL_CLASSES + modelClass(c)]!++;
    if (c < 128) f[base + (pc | (pair << 1) | (tc << 2) | (triple << 3))]!++;
    else {
      f[base + 15 + unitTokens(c)]!++;
      f[base + 19]! += pc;
      f[base + 20]! += tc;
    }
    pair = pc;
    triple = tc;
    pp = p;
    p = c;
  }
}

/** Class of a code unit in the estimate's linear model (the fit of its weights, test/tokens/fit-model.ts, uses it too). */
export function modelClass(c: number): number {
  return c < 128 ? MODEL_ASCII[c]! : c < 0x800 ? 7 : (c & 0xf800) === 0xd800 ? 9 : 8;
}

/** Relative standard error the estimate stops at (the ±2 % target is then 4 standard errors). */
const TARGET_SE = 0.005;
/** A piece this long is sampled by chunks in an estimate, not merged whole (a chunk boundary costs at most one token in 512 characters). */
const LONG_PIECE = 512;
/** At most this many characters are sampled (an 870k-character page); a text still off target then is counted. */
const MAX_SAMPLED = 24_576;

/** The error of fewer windows that counted something is not judged (more windows are taken first). */
const MIN_FILLED = 16;

/**
 * Up to this length a text that looks cheap to count ({@link sampleText}) is counted at once: its windows would
 * not reach the error target there (0.6–1.4 % at 64 windows on 12k-character code, JSON, logs, prose), and
 * its exact count costs about what the windows would.
 */
const SMALL_TEXT = 12_288;

/**
 * How many of 64 code units at fixed places of the text (a function of the text alone) are outside ASCII, as
 * a negative number when the text looks cheap to count exactly (code, prose, logs, JSON: ~10–60 ns a
 * character), not like CJK (8 or more outside ASCII) or base64 (56 or more letters, digits, + or / and at most
 * one space or tab), which cost 100–250 ns a character and are estimated from fewer windows with the token model
 * instead. Line breaks do not count against base64: it is often wrapped (76 columns), and a place or two of 64
 * falling on a line break made a base64 text of 12k characters look cheap and be counted exactly at once.
 */
function sampleText(t: string): number {
  let other = 0;
  let alnum = 0;
  let space = 0;
  for (let k = 0; k < 64; k++) {
    const c = t.charCodeAt(Math.floor(((k + 0.5) * t.length) / 64));
    if (c >= 128) other++;
    else if (B64_VALUE[c]! >= 0) alnum++;
    else if (c === 32 || c === 9) space++;
  }
  return other < 8 && (alnum < 56 || space > 1) ? -1 : other;
}

/** What a pass over the text costs per character (ns, about): none for the ratio, the class model's, the token model's on ASCII (~11 on CJK: priced by the sampled share outside ASCII). */
const PASS_NS = [0, 2.5, 6];
/** Scratch of the estimate: per window, exact tokens, model tokens, characters, start. */
let winT = new Float64Array(256);
let winM = new Float64Array(256);
let winK = new Float64Array(256);
let winC = new Float64Array(256);
let winAt = new Float64Array(256);
let order = new Int32Array(256);

/** The standard errors {@link standardErrors} computed last: the ratio's, the token model's, the class model's. */
const errs = new Float64Array(3);

/**
 * Relative standard errors of the three estimates from the first `j` windows (into {@link errs}): by successive
 * differences over the windows in text order (the estimator for systematic samples: a change of content between
 * two windows counts once, not as variance of every window), each relative to the ratio estimate. `r0`, `r1`, `r2`:
 * tokens per sampled character, and the token and class models' residual per sampled character.
 */
function standardErrors(j: number, chars: number, r0: number, r1: number, r2: number): void {
  if (order.length < j) order = new Int32Array(2 * j);
  for (let k = 0; k < j; k++) order[k] = k;
  const ord = order.subarray(0, j).sort((a, b) => winAt[a]! - winAt[b]!);
  let ss0 = 0;
  let ss1 = 0;
  let ss2 = 0;
  for (let k = 1; k < j; k++) {
    const a = ord[k - 1]!;
    const b = ord[k]!;
    const d0 = winT[b]! - r0 * winC[b]! - (winT[a]! - r0 * winC[a]!);
    const d1 = winT[b]! - winM[b]! - r1 * winC[b]! - (winT[a]! - winM[a]! - r1 * winC[a]!);
    const d2 = winT[b]! - winK[b]! - r2 * winC[b]! - (winT[a]! - winK[a]! - r2 * winC[a]!);
    ss0 += d0 * d0;
    ss1 += d1 * d1;
    ss2 += d2 * d2;
  }
  const scale = 1 / (2 * (j - 1) * j) / (chars / j) ** 2 / Math.max(1e-9, r0) ** 2;
  errs[0] = Math.sqrt(ss0 * scale);
  errs[1] = Math.sqrt(ss1 * scale);
  errs[2] = Math.sqrt(ss2 * scale);
}

/**
 * Windows of the pilot on text that is cheap to count (which starts from 64): when these already say that the
 * windows the error target needs would cover half the text, it is counted exactly at once. See cl100kEstimate.
 */
const PILOT = 16;

/** Windows the last {@link cl100kEstimate} counted before it returned (0: counted at once): for tests. */
let windowsCounted = 0;

/** How many sample windows the last {@link cl100kEstimate} call counted (0 when it counted the text at once): for tests. */
export function lastEstimateWindows(): number {
  return windowsCounted;
}

/**
 * Estimated cl100k_base count of a long text from evenly spread sample
 * windows of `width` characters counted exactly, in one of three ways, the
 * cheapest that reaches the error target first:
 * - the ratio: sampled tokens per character × length (no pass over the text);
 * - the difference with a linear model as control variate: model(text) +
 *   length × Σ(exact − model) / Σ characters over the windows, the windows
 *   only sampling what the model misses. Two models, each one pass over the
 *   text: the class model (a weight per pair of adjacent character classes,
 *   ~2.5 ns a character) explains about half of what code, prose, logs and
 *   JSON windows differ by; the token model (class pairs plus a few token
 *   facts per code unit: is it a token with the one or two units before it;
 *   outside ASCII, how many tokens its bytes are alone; ~6 ns a character)
 *   almost all of what CJK windows differ by, half of base64's, and somewhat
 *   more than the class model on the others.
 *
 * Each window counts the whole pre-tokenizer pieces that start inside it (the
 * split is re-synchronized a little before the window, so these are the
 * pieces the full text has), except a piece of 512 characters or more (one
 * 4 MB word), which counts where it overlaps the window at the rate of one
 * aligned chunk of it; the model is taken over the same characters.
 *
 * Adaptive: it starts with `windows` windows (default: 64 on text that is cheap
 * to count exactly, i.e. not like base64 or CJK, which then uses the ratio or the class model
 * only, as before the token model; 16 on other text) and doubles them (the new ones
 * in between the old, a van der Corput sequence, each shifted within 1/(first windows)
 * of the text) until the standard error of
 * one of the two (successive differences of the windows' residuals in text
 * order) is under 0.5 %, or 24k characters are sampled (then the text is
 * counted exactly if none reached the target). When the windows the target needs (predicted from the
 * error so far) would cover half the text, or (from 64 windows on) exceed the cap on a
 * text of up to 4 × the cap, it counts exactly instead. Deterministic: the same
 * text always gives the same count (the model's tables are functions of the rank
 * table and of each code unit).
 */
export function cl100kEstimate(text: string, windows?: number, width = 48): number {
  const length = text.length;
  // Text that is cheap to count exactly (not like base64 or CJK) starts from 64 windows and is estimated as before
  // the token model (ratio or class model, exact when the windows would cover half the text): its exact count
  // is only 2-3 times a window's cost per character, and up to 12,288 characters it is counted at once. Other
  // text (base64, CJK, mixes) starts from 16 and takes the way predicted to be cheapest.
  windowsCounted = 0;
  const sampled = sampleText(text);
  const cheap = sampled < 0;
  const initial = windows ?? (cheap ? 64 : 16);
  // Below 4 × the first windows' characters an estimate would count exactly anyway (twice as many windows
  // would cover half the text).
  if (length <= 4 * initial * width || (cheap && length <= SMALL_TEXT)) return cl100kCount(text);
  buildModel();
  const RESYNC = 24;
  let tokens = 0; // Σ exact over the windows
  let modelled = 0; // Σ token model (code model on cheap text) over the windows
  let classed = 0; // Σ class model over the windows
  let chars = 0;
  let filled = 0; // windows that counted something
  let target = initial;
  for (let j = 0; ; j++) {
    // Fewer than 16 windows that counted something (pieces of hundreds of characters: most 48-character windows
    // fall inside one and count nothing) are too few to judge the error by: on words of 100-500 letters the 3 of
    // 16 that did gave 0.2 % and the estimate stopped 2.4 % off. More windows first (below the cap).
    if (j === target && filled < MIN_FILLED && 2 * target * width <= MAX_SAMPLED) {
      if (2 * target * width * 2 > length) return cl100kCount(text);
      target *= 2;
    }
    // The pilot (cheap text only): the first PILOT windows are an even grid of the text too. When the windows the
    // target needs, predicted from them, would cover half the text, the 64 windows would predict the same in
    // expectation (the error falls as 1/√windows, so the windows needed do not depend on how many were taken)
    // and the text would be counted exactly after them: it is counted now. Line-numbered code (a read tool's
    // view of a file; ~1.6 % error at 64 windows, ~700 windows needed) is counted exactly up to ~65k characters
    // either way, and its 64 windows cost about half what the count does (the step bench's 12k-64k numbered
    // files: 52-55 ms estimated, 28-36 ms counted). The pilot's prediction is noisier: a text at the edge may be
    // counted where the 64 windows would have estimated it (exact: within target either way).
    if (cheap && j === PILOT && target > PILOT && filled >= MIN_FILLED) {
      standardErrors(j, chars, tokens / chars, (tokens - modelled) / chars, (tokens - classed) / chars);
      const need = j * (Math.min(errs[0]!, errs[1]!, errs[2]!) / TARGET_SE) ** 2;
      if (2 * Math.min(need, MAX_SAMPLED / width) * width > length) return cl100kCount(text);
    }
    if (j === target) {
      if (chars === 0) return cl100kCount(text);
      // Two estimates from the same windows: the ratio (tokens per character × length) and the difference
      // with the model as control variate (model of the text + the model's error per character × length).
      // Standard errors by successive differences over the windows in text order (the estimator for
      // systematic samples: a change of content between two windows counts once, not as variance of every
      // window), both relative to the ratio estimate.
      const r0 = tokens / chars;
      const r1 = (tokens - modelled) / chars;
      const r2 = (tokens - classed) / chars;
      standardErrors(j, chars, r0, r1, r2);
      const se0 = errs[0]!;
      const se1 = errs[1]!;
      const se2 = errs[2]!;
      // On cheap text the second model is the code model, not the token model (see the windows below).
      const best = Math.min(se0, se1, se2);
      const last = 2 * target * width > MAX_SAMPLED;
      if (filled < MIN_FILLED) return cl100kCount(text);
      // At the cap and still off the target (windows that differ a lot: runs of hundreds of characters counted
      // whole by the window they start in), the text is counted rather than estimated, whatever its length: an
      // estimate returned there was 10-18 % off on 1M characters of such records.
      if (last && best > TARGET_SE) return cl100kCount(text);
      if (cheap) {
        // The ratio, else the class or the code model (one pass each, at the same cost: the more precise), the first
        // at the target (at the cap, the most precise); exact when the windows they need would cover half the text.
        if (se0 <= TARGET_SE || (last && se0 === best)) return Math.round(r0 * length);
        if (Math.min(se1, se2) <= TARGET_SE || last) {
          if (se1 < se2) return Math.max(0, Math.round(codeModelTokens(text, 0, length) + r1 * length));
          return Math.max(0, Math.round(classModelTokens(text, 0, length) + r2 * length));
        }
        const need = j * (best / TARGET_SE) ** 2;
        if (2 * Math.min(need, MAX_SAMPLED / width) * width > length || 2 * target * width * 2 > length) return cl100kCount(text);
        if (j >= 64 && need * width > MAX_SAMPLED && length <= 4 * MAX_SAMPLED) return cl100kCount(text);
        target *= 2;
      } else {
        if (last) {
          // The cheapest at the target, else the most precise.
          const way = se0 <= TARGET_SE ? 0 : se2 <= TARGET_SE ? 1 : se1 <= TARGET_SE ? 2 : se0 === best ? 0 : se2 === best ? 1 : 2;
          if (way === 0) return Math.round(r0 * length);
          if (way === 1) return Math.max(0, Math.round(classModelTokens(text, 0, length) + r2 * length));
          return Math.max(0, Math.round(modelTokens(text, 0, length) + r1 * length));
        }
        // Which way is cheapest to the target, in predicted nanoseconds: its pass over the text (none for the
        // ratio, ~2.5 ns a character for the class model, ~6 for the token model on ASCII to ~11 on CJK, by the
        // sampled share outside ASCII) and the windows it still needs
        // (the error falls as 1/√windows), a window's character costing about what an exact count's does
        // (taken as 150 ns per token: ~35 for code, ~110 for base64, ~175 for CJK; 1.5× for a window's
        // overhead). Taken when it is at the target now; counted exactly when that is cheaper; else more windows.
        // (A prediction only chooses between correct ways; it depends on the windows, never on a clock.)
        const perChar = 150 * r0;
        let way = 0;
        let cost = Number.POSITIVE_INFINITY;
        let need = 0;
        for (let k = 0; k < 3; k++) {
          const se = k === 0 ? se0 : k === 1 ? se2 : se1;
          const n = Math.max(j, j * (se / TARGET_SE) ** 2);
          const pass = k === 2 ? PASS_NS[2]! + (5 * sampled) / 64 : PASS_NS[k]!;
          const c = pass * length + (n - j) * width * perChar * 1.5;
          if (c < cost) {
            cost = c;
            way = k;
            need = n;
          }
        }
        // Exact when cheaper, when the windows needed would cover half the text, or (judged from 64 windows on)
        // exceed the cap on a text that would be counted at the cap anyway.
        if (cost >= perChar * length || 2 * Math.min(need, MAX_SAMPLED / width) * width > length) return cl100kCount(text);
        if (j >= 64 && need * width > MAX_SAMPLED && length <= 4 * MAX_SAMPLED) return cl100kCount(text);
        if (need === j) {
          if (way === 0) return Math.round(r0 * length);
          if (way === 1) return Math.max(0, Math.round(classModelTokens(text, 0, length) + r2 * length));
          return Math.max(0, Math.round(modelTokens(text, 0, length) + r1 * length));
        }
        if (2 * target * width * 2 > length) return cl100kCount(text);
        target *= 2;
      }
    }
    // Window j sits at its point of the even grid, shifted by up to 1/initial of the text (a second
    // low-discrepancy coordinate): on records of a fixed width whose multiple the grid's spacing is, unshifted
    // windows would all fall at the same place of a record and sample one kind of content (5-79 % off). The
    // first windows × 2^k grid points shifted by up to a multiple of their spacing still sample the text evenly.
    const from = Math.floor(((vanDerCorput(j) + radicalInverse3(j) / initial) % 1) * (length - width));
    const to = from + width;
    let t = 0;
    let first = -1;
    let last = -1;
    // Pieces are read no further than LONG_PIECE past the window: a piece that runs on for megabytes (one
    // 4 MB word) would make every window walk to its end. A piece cut there is at least LONG_PIECE long.
    const limit = Math.min(length, to + LONG_PIECE);
    let start0 = Math.max(0, from - RESYNC);
    // A piece that runs from the resync point into the window may have started further back (a long run of
    // spaces or letters): read from LONG_PIECE back instead, so that a piece of LONG_PIECE or more is seen as
    // such and counted where it overlaps the window. Seen from the resync point it looked short and started
    // before the window, so it was skipped: its characters left out of the window, and the windows of long
    // low-density runs counted fewer characters than the others (11 % off on records of 2,048 digits and
    // 2,048 spaces).
    if (start0 > 0 && pieceEnd(text, start0, limit) > from) start0 = Math.max(0, from - LONG_PIECE);
    for (let at = start0; at < limit; ) {
      const end = pieceEnd(text, at, limit);
      const start = at;
      const n = end - at;
      at = end;
      if (start >= to) break;
      if (n >= LONG_PIECE) {
        // A long piece counts only where it overlaps the window, at the rate of one aligned chunk of
        // it (merging the whole piece is O(n log n) with a large constant: seconds for a 1M-byte word).
        const lo = Math.max(start, from);
        const hi = Math.min(end, to);
        if (hi <= lo) continue;
        const k = Math.min(Math.floor((lo - start) / LONG_PIECE) * LONG_PIECE, n - LONG_PIECE);
        t += ((hi - lo) * pieceTokens(text, start + k, start + k + LONG_PIECE)) / LONG_PIECE;
        if (first < 0) first = lo;
        last = hi;
        continue;
      }
      if (start < from) continue;
      t += n === 1 && text.charCodeAt(start) < 0x80 ? 1 : pieceTokens(text, start, end);
      if (first < 0) first = start;
      last = end;
    }
    // The counted characters are contiguous: [first, last).
    const c = first < 0 ? 0 : last - first;
    // The second model: on text that is cheap to count the code model (the token model's pass would cost more than
    // it saves there), else the token model.
    const m = c > 0 ? (cheap ? codeModelTokens(text, first, last) : modelTokens(text, first, last)) : 0;
    const k = c > 0 ? classModelTokens(text, first, last) : 0;
    if (winT.length <= j) {
      const grow = (a: Float64Array): Float64Array<ArrayBuffer> => {
        const b = new Float64Array(2 * a.length);
        b.set(a);
        return b;
      };
      winT = grow(winT);
      winM = grow(winM);
      winK = grow(winK);
      winC = grow(winC);
      winAt = grow(winAt);
    }
    winT[j] = t;
    winM[j] = m;
    winK[j] = k;
    winC[j] = c;
    winAt[j] = from;
    windowsCounted = j + 1;
    tokens += t;
    modelled += m;
    classed += k;
    chars += c;
    if (c > 0) filled++;
  }
}

/** The pre-tokenizer's pieces of `text` (what cl100k's pattern matches, in order): for tests. */
export function cl100kPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const end = pieceEnd(text, at, text.length);
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

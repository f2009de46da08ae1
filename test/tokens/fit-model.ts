/**
 * Fits the weights of the estimate's linear model (MODEL_WEIGHTS in src/tokens/bpe.ts) and prints them:
 * `npx tsx test/tokens/fit-model.ts`. Not a test: the model is only the estimate's control variate, so its
 * weights change how many windows an estimate needs, never whether it is within its error target (the
 * accuracy tests in bpe.test.ts hold whatever the weights).
 *
 * Data: 48-character windows (the pieces that start in each, as the estimate counts them) of every payload
 * kind (seeds 101–104, other than the tests' 1–6) plus tab-indented code, Cyrillic prose and prose with
 * emoji; features: per pair of adjacent code-unit classes, how often it occurs in the window (the previous
 * unit being the text's own); least squares with a ridge of 1.
 */
import { MODEL_CLASSES, cl100kCount, cl100kPieces, modelClass as classOf } from '../../src/tokens/bpe.js';
import { PAYLOAD_KINDS, payload } from '../../src/synthetic/payloads.js';

const K = MODEL_CLASSES;
const D = K * K;
const WIDTH = 48;

function features(t: string, from: number, to: number): Float64Array {
  const f = new Float64Array(D);
  let prev = from > 0 ? classOf(t.charCodeAt(from - 1)) : 4;
  for (let i = from; i < to; i++) {
    const k = classOf(t.charCodeAt(i));
    f[prev * K + k]!++;
    prev = k;
  }
  return f;
}

const CYRILLIC = 'абвгдежзийклмнопрстуфхцчшщыэюя';
const texts: string[] = [];
for (const kind of PAYLOAD_KINDS) for (const seed of [101, 102, 103, 104]) texts.push(payload(kind, 20_000, seed));
for (const seed of [101, 102]) {
  texts.push(payload('code', 20_000, seed).replace(/ {2}/g, '\t'));
  texts.push(payload('prose', 20_000, seed).replace(/[a-z]/g, (c) => CYRILLIC[(c.charCodeAt(0) * 7) % CYRILLIC.length]!));
  texts.push(payload('prose', 20_000, seed).replace(/\. /g, (_, i: number) => ['. 😀 ', '. 🚀 ', '. ✅ ', '. '][i % 4]!));
}

const rows: Float64Array[] = [];
const ys: number[] = [];
for (const t of texts) {
  const pieces = cl100kPieces(t);
  const starts: number[] = [];
  const tokens: number[] = [];
  let at = 0;
  for (const p of pieces) {
    starts.push(at);
    tokens.push(cl100kCount(p));
    at += p.length;
  }
  starts.push(at);
  let first = 0;
  for (let w = 0; w + WIDTH < t.length; w += WIDTH) {
    while (first < pieces.length && starts[first]! < w) first++;
    let end = first;
    let y = 0;
    while (end < pieces.length && starts[end]! < w + WIDTH) y += tokens[end++]!;
    if (end === first) continue;
    rows.push(features(t, starts[first]!, starts[end]!));
    ys.push(y);
  }
}

// Normal equations with a ridge of 1, solved by Gauss-Jordan elimination with partial pivoting.
const A = Array.from({ length: D }, () => new Float64Array(D + 1));
rows.forEach((f, r) => {
  for (let i = 0; i < D; i++) {
    if (!f[i]) continue;
    for (let j = 0; j < D; j++) A[i]![j]! += f[i]! * f[j]!;
    A[i]![D]! += f[i]! * ys[r]!;
  }
});
for (let i = 0; i < D; i++) A[i]![i]! += 1;
for (let c = 0; c < D; c++) {
  let p = c;
  for (let r = c + 1; r < D; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[p]![c]!)) p = r;
  [A[c], A[p]] = [A[p]!, A[c]!];
  const v = A[c]![c]!;
  for (let j = c; j <= D; j++) A[c]![j]! /= v;
  for (let r = 0; r < D; r++) {
    const m = A[r]![c]!;
    if (r === c || !m) continue;
    for (let j = c; j <= D; j++) A[r]![j]! -= m * A[c]![j]!;
  }
}
const w = A.map((r) => Math.round(r[D]! * 1000) / 1000);
console.log(`${rows.length} windows; MODEL_WEIGHTS, one row per previous class:`);
for (let i = 0; i < K; i++) console.log(`  ${w.slice(i * K, i * K + K).join(', ')},`);

/**
 * Fits the weights of the estimate's linear models (CLASS_WEIGHTS, CODE_WEIGHTS, and MODEL_WEIGHTS with EXTRA_WEIGHTS,
 * in src/tokens/bpe.ts) and prints them:
 * `npx tsx test/tokens/fit-model.ts`. Not a test: the model is only the estimate's control variate, so its
 * weights change how many windows an estimate needs, never whether it is within its error target (the
 * accuracy tests in bpe.test.ts hold whatever the weights).
 *
 * Data: 48-character windows (the pieces that start in each, as the estimate counts them) of every payload
 * kind (seeds 101–104, other than the tests' 1–6) plus tab-indented code, code with numbered lines (as a read
 * tool shows a file), Cyrillic prose and prose with emoji; features: modelFeatures (per pair of adjacent code-unit classes, how often it occurs in the window,
 * the previous unit being the text's own; and the token features of MODEL_EXTRA); least squares with a
 * ridge of 1. Prints the class model's weights (CLASS_WEIGHTS: the class pairs alone), the token model's
 * (MODEL_WEIGHTS and EXTRA_WEIGHTS, fitted together) and, per payload kind, the standard error each leaves at
 * 64 windows.
 */
import { MODEL_CLASSES, MODEL_EXTRA, cl100kCount, cl100kPieces, modelFeatures } from '../../src/tokens/bpe.js';
import { PAYLOAD_KINDS, payload } from '../../src/synthetic/payloads.js';

const K = MODEL_CLASSES;
const D = K * K + MODEL_EXTRA;
const WIDTH = 48;

function features(t: string, from: number, to: number): Float64Array {
  const f = new Float64Array(D);
  modelFeatures(t, from, to, f);
  return f;
}

const CYRILLIC = 'абвгдежзийклмнопрстуфхцчшщыэюя';
/** A file as an agent's read tool shows it: each line after its number, right-aligned in 6, and a tab. */
const numbered = (t: string): string =>
  t
    .split('\n')
    .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
    .join('\n');
const OTHER: Record<string, (seed: number) => string> = {
  'code, tabs': (seed) => payload('code', 20_000, seed).replace(/ {2}/g, '\t'),
  'code, numbered lines': (seed) => numbered(payload('code', 20_000, seed)),
  'prose, Cyrillic': (seed) => payload('prose', 20_000, seed).replace(/[a-z]/g, (c) => CYRILLIC[(c.charCodeAt(0) * 7) % CYRILLIC.length]!),
  'prose, emoji': (seed) => payload('prose', 20_000, seed).replace(/\. /g, (_, i: number) => ['. 😀 ', '. 🚀 ', '. ✅ ', '. '][i % 4]!),
};
const texts: string[] = [];
for (const kind of PAYLOAD_KINDS) for (const seed of [101, 102, 103, 104]) texts.push(payload(kind, 20_000, seed));
for (const seed of [101, 102]) for (const [name, make] of Object.entries(OTHER)) if (name !== 'code, numbered lines') texts.push(make(seed));
/** The class model is fitted on the texts above only (its weights, and so the estimate of text that is cheap to count, as before the token model); the token model on these too. */
const classTexts = texts.length;
for (const seed of [101, 102]) texts.push(OTHER['code, numbered lines']!(seed));
/**
 * The code model (CODE_WEIGHTS): the class pairs again, fitted only on text that is cheap to count exactly (code,
 * numbered and tab-indented code, JSON, logs, prose and their mix), which the class model's weights, pulled by
 * base64 and CJK windows, fit less well (numbered code: 1.6 % at 64 windows against 0.8 %).
 */
const CHEAP_KINDS = ['code', 'json', 'log', 'prose', 'log+json'] as const;
const codeTexts: string[] = [];
for (const kind of CHEAP_KINDS) for (const seed of [101, 102, 103, 104]) codeTexts.push(payload(kind, 20_000, seed));
for (const seed of [101, 102, 103]) codeTexts.push(OTHER['code, numbered lines']!(seed));
for (const seed of [101, 102]) codeTexts.push(OTHER['code, tabs']!(seed));

/**
 * A text's windows of WIDTH characters with the exact tokens of the pieces that start in each: `from`/`to` are
 * where the first counted piece starts and the last one ends (windows where no piece starts are left out).
 */
function windowsOf(t: string): { y: number; from: number; to: number }[] {
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
  const out: { y: number; from: number; to: number }[] = [];
  let first = 0;
  for (let w = 0; w + WIDTH < t.length; w += WIDTH) {
    while (first < pieces.length && starts[first]! < w) first++;
    let end = first;
    let y = 0;
    while (end < pieces.length && starts[end]! < w + WIDTH) y += tokens[end++]!;
    if (end > first) out.push({ y, from: starts[first]!, to: starts[end]! });
  }
  return out;
}

const rows: Float64Array[] = [];
const ys: number[] = [];
let classRows = 0;
for (const [n, t] of texts.entries()) {
  if (n === classTexts) classRows = rows.length;
  for (const { y, from, to } of windowsOf(t)) {
    rows.push(features(t, from, to));
    ys.push(y);
  }
}

/** Least squares over the first `d` features of rows [from, n) with a ridge of 1 (normal equations, Gauss-Jordan with partial pivoting), rounded to 3 decimals. */
function leastSquares(d: number, n: number, from = 0): number[] {
  const A = Array.from({ length: d }, () => new Float64Array(d + 1));
  rows.slice(from, n).forEach((f, k) => {
    const r = from + k;
    for (let i = 0; i < d; i++) {
      if (!f[i]) continue;
      for (let j = 0; j < d; j++) A[i]![j]! += f[i]! * f[j]!;
      A[i]![d]! += f[i]! * ys[r]!;
    }
  });
  for (let i = 0; i < d; i++) A[i]![i]! += 1;
  for (let c = 0; c < d; c++) {
    let p = c;
    for (let r = c + 1; r < d; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[p]![c]!)) p = r;
    [A[c], A[p]] = [A[p]!, A[c]!];
    const v = A[c]![c]!;
    for (let j = c; j <= d; j++) A[c]![j]! /= v;
    for (let r = 0; r < d; r++) {
      const m = A[r]![c]!;
      if (r === c || !m) continue;
      for (let j = c; j <= d; j++) A[r]![j]! -= m * A[c]![j]!;
    }
  }
  return A.map((r) => Math.round(r[d]! * 1000) / 1000);
}

const codeFrom = rows.length;
for (const t of codeTexts) {
  for (const { y, from, to } of windowsOf(t)) {
    rows.push(features(t, from, to));
    ys.push(y);
  }
}
const codeOnly = leastSquares(K * K, rows.length, codeFrom);
rows.length = codeFrom;
ys.length = codeFrom;
const classOnly = leastSquares(K * K, classRows);
console.log(`${classRows} windows; CLASS_WEIGHTS (the class model), one row per previous class:`);
for (let i = 0; i < K; i++) console.log(`  ${classOnly.slice(i * K, i * K + K).join(', ')},`);
console.log('CODE_WEIGHTS (the code model), one row per previous class:');
for (let i = 0; i < K; i++) console.log(`  ${codeOnly.slice(i * K, i * K + K).join(', ')},`);
const w = leastSquares(D, rows.length);
console.log(`${rows.length} windows; MODEL_WEIGHTS (the token model), one row per previous class:`);
for (let i = 0; i < K; i++) console.log(`  ${w.slice(i * K, i * K + K).join(', ')},`);
console.log('EXTRA_WEIGHTS:');
console.log(`  ${w.slice(K * K, K * K + 16).join(', ')},`);
console.log(`  ${w.slice(K * K + 16).join(', ')},`);

// What each model leaves: the standard error an estimate of 64 windows would have, per payload kind (held-out
// seed 1), from the residuals of all 48-character windows of a 20k text.
for (const [kind, t] of [
  ...PAYLOAD_KINDS.map((k) => [k, payload(k, 20_000, 1)] as const),
  ...Object.entries(OTHER).map(([k, make]) => [k, make(1)] as const),
]) {
  const res: number[] = [];
  const resClass: number[] = [];
  const resCode: number[] = [];
  const ys2: number[] = [];
  for (const { y, from, to } of windowsOf(t)) {
    const f = features(t, from, to);
    res.push(y - f.reduce((s, v, i) => s + v * w[i]!, 0));
    resClass.push(y - f.reduce((s, v, i) => s + (i < K * K ? v * classOnly[i]! : 0), 0));
    resCode.push(y - f.reduce((s, v, i) => s + (i < K * K ? v * codeOnly[i]! : 0), 0));
    ys2.push(y);
  }
  const my = ys2.reduce((a, b) => a + b, 0) / ys2.length;
  const se = (r: number[]): string => {
    const mr = r.reduce((a, b) => a + b, 0) / r.length;
    const sd = Math.sqrt(r.reduce((s, v) => s + (v - mr) ** 2, 0) / r.length);
    return `${((sd / my / 8) * 100).toFixed(2)} %`;
  };
  console.log(`${kind}: standard error at 64 windows: class model ${se(resClass)}, code model ${se(resCode)}, token model ${se(res)}`);
}

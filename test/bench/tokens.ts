/**
 * Token counting cost per character, on every payload kind: the exact count
 * (`cl100kCount`) against js-tiktoken's `encode` on the same texts, and the
 * estimate (`cl100kEstimate`, what the render path uses above HUGE_TEXT
 * characters) against the exact count of the same texts, with its error
 * against js-tiktoken's count of the same text (up to 60k characters; at 250k
 * against `cl100kCount`, which counts what js-tiktoken counts (test/tokens):
 * js-tiktoken takes ~30 s on 250k characters of CJK), and how many of the
 * estimates equal the exact count (counted exactly: the estimate's own choice
 * on short cheap text, or after windows that would not reach the error
 * target; an estimate can also fall on it by chance).
 *
 * Times are the main thread's CPU time where there is a thread clock
 * (Node ≥ 23.9, or BENCH_THREAD_CLOCK=1: thread-clock.ts), else wall time:
 * at a load of 13-15 on 2 cores wall ranges spanned 30-100× within a row.
 *
 * Each timed count is of a text not counted before (a new seed per run and
 * text: the piece memo and caches hold only what earlier texts left, as in a
 * session; the estimate and the exact count it is compared with take two
 * different texts of the same kind and size),
 * after a warm-up on other seeds; figures are medians over the runs with the
 * range, and the ratios are taken within each run.
 *
 * Run: `npm run bench -- tokens` (or `npx tsx test/bench/tokens.ts`).
 */
import { getEncoding } from 'js-tiktoken';
import { PAYLOAD_KINDS, payload } from '../../src/synthetic/payloads.js';
import { cl100kCount, cl100kEstimate } from '../../src/tokens/bpe.js';
import { threadClock, threadClockName } from './thread-clock.js';
import { formatRows, isMain, median, type Row, sig } from './util.js';

// Even: which counter goes first alternates per run, and the second one finds the piece memo warmed by the
// first one's text of the same kind (about ×1.2 in a scratch A/B), so both orders must count equally.
const RUNS = Number(process.env.BENCH_TOKENS_RUNS ?? 6);
/** Texts per run for the exact count (a size the render path counts exactly: ≤ HUGE_TEXT). */
const EXACT_SIZE = 3_000;
const EXACT_TEXTS = 4;
// 9k and 13k: either side of the length up to which cheap text is counted at once (12,288).
const ESTIMATE_SIZES = [5_000, 9_000, 13_000, 20_000, 60_000, 250_000];
/** Up to this length the error is taken against js-tiktoken itself (beyond, it takes tens of seconds on CJK). */
const REFERENCE_MAX = 60_000;

/** Now, ns: the main thread's CPU time where there is a thread clock, else wall time. */
const now: () => number = threadClock() ?? ((): number => Number(process.hrtime.bigint()));

function nsPerChar(texts: readonly string[], count: (text: string) => number): number {
  let chars = 0;
  const t0 = now();
  for (const t of texts) {
    count(t);
    chars += t.length;
  }
  return (now() - t0) / chars;
}

/** A string the engine holds flat, as a parsed tool result is (payload() builds it by concatenation). */
const flat = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

const range = (xs: readonly number[], digits = 3): string => `${sig(Math.min(...xs), digits)}–${sig(Math.max(...xs), digits)}`;

export default async function bench(): Promise<Row[]> {
  const reference = getEncoding('cl100k_base');
  const tiktoken = (t: string): number => reference.encode(t, [], []).length;
  const rows: Row[] = [];
  // Warm-up: every kind, both counters (JIT, the rank tables built).
  for (const kind of PAYLOAD_KINDS) {
    for (let i = 0; i < 3; i++) {
      const t = flat(payload(kind, EXACT_SIZE, 90_000 + i));
      cl100kCount(t);
      tiktoken(t);
      cl100kEstimate(flat(payload(kind, 20_000, 90_000 + i)));
    }
  }
  for (const kind of PAYLOAD_KINDS) {
    const ours: number[] = [];
    const theirs: number[] = [];
    const ratio: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const texts = Array.from({ length: EXACT_TEXTS }, (_, i) => flat(payload(kind, EXACT_SIZE, 1_000 + r * EXACT_TEXTS + i)));
      // Alternate which counter goes first.
      let a: number;
      let b: number;
      if (r % 2 === 0) {
        a = nsPerChar(texts, cl100kCount);
        b = nsPerChar(texts, tiktoken);
      } else {
        b = nsPerChar(texts, tiktoken);
        a = nsPerChar(texts, cl100kCount);
      }
      ours.push(a);
      theirs.push(b);
      ratio.push(b / a);
    }
    rows.push({
      name: `exact: ${kind} (${EXACT_SIZE.toLocaleString('en-US')} chars)`,
      value: sig(median(ours)),
      unit: 'ns/char',
      baseline: `range ${range(ours)}; js-tiktoken ${sig(median(theirs))} ns/char (${range(theirs)}): ×${sig(median(ratio))} faster (${range(ratio)})`,
    });
  }
  for (const size of ESTIMATE_SIZES) {
    for (const kind of PAYLOAD_KINDS) {
      const est: number[] = [];
      const exact: number[] = [];
      const ratio: number[] = [];
      let worst = 0;
      let counted = 0;
      for (let r = 0; r < RUNS; r++) {
        // Two unseen texts of the same kind and size: one estimated, the other counted exactly (counting one
        // text twice would time the second count against a warm piece memo).
        const text = flat(payload(kind, size, 2_000 + 2 * r));
        const other = flat(payload(kind, size, 2_001 + 2 * r));
        let got = 0;
        const timeEstimate = (): number => {
          const t0 = now();
          got = cl100kEstimate(text);
          return (now() - t0) / text.length;
        };
        const timeExact = (): number => nsPerChar([other], cl100kCount);
        let e: number;
        let x: number;
        if (r % 2 === 0) {
          e = timeEstimate();
          x = timeExact();
        } else {
          x = timeExact();
          e = timeEstimate();
        }
        est.push(e);
        exact.push(x);
        ratio.push(e / x);
        const want = size <= REFERENCE_MAX ? tiktoken(text) : cl100kCount(text);
        if (got === want) counted++;
        worst = Math.max(worst, Math.abs(got / want - 1));
      }
      rows.push({
        name: `estimate: ${kind} (${size.toLocaleString('en-US')} chars)`,
        value: sig(median(est)),
        unit: 'ns/char',
        baseline: `range ${range(est)}; ÷ exact count ${sig(median(ratio))} (${range(ratio)}); exact ${sig(median(exact))} ns/char; worst error ${(worst * 100).toFixed(2)} % (vs ${size <= REFERENCE_MAX ? 'js-tiktoken' : 'cl100kCount'}); equal to the exact count ${counted} of ${RUNS}`,
      });
    }
  }
  rows.unshift({
    name: 'clock',
    value: RUNS,
    unit: 'runs',
    baseline: threadClockName.startsWith('thread') ? threadClockName : 'wall time (no thread clock: BENCH_THREAD_CLOCK=1 on Node < 23.9)',
  });
  return rows;
}

if (isMain(import.meta.url)) console.log(formatRows(await bench()));

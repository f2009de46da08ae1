/**
 * Bundle size of the core entry (`cachepoint`, src/index.ts) as an edge
 * runtime's bundler would build it: esbuild, bundled, minified, platform
 * neutral, ESM. Reports the bytes (and gzip bytes), the share of the one rank
 * table (cl100k), and fails the bench (throws, so `npm run bench` exits 1)
 * when the bundle exceeds its budget.
 *
 * The budget is bytes, not a ratio: the size does not depend on the machine's load.
 * `BENCH_BUNDLE_BUDGET` (bytes) overrides it, e.g. to check the failure path.
 *
 * Run: `npm run bench -- bundle` (or `npx tsx test/bench/bundle.ts`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { isMain, median, type Row, sig } from './util.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The core entry's budget: 1.5 MB (1,500,000 bytes). It was 1.31 MB when set, 1.09 MB of it the cl100k rank table. */
export const CORE_BUNDLE_BUDGET = 1_500_000;

export interface BundleSize {
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Bytes the cl100k rank table contributes to the output. */
  readonly rankTableBytes: number;
  /** Output bytes per package (node_modules) or `cachepoint` for our own source. */
  readonly byPackage: ReadonlyMap<string, number>;
  /** The minified bundle itself. */
  readonly code: Uint8Array;
}

function packageOf(input: string): string {
  const i = input.lastIndexOf('node_modules/');
  if (i === -1) return 'cachepoint';
  const rest = input.slice(i + 'node_modules/'.length).split('/');
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
}

/** Bundles `entry` (relative to the repository root) minified for a neutral (edge) platform and measures it. */
export async function bundleSize(entry = 'src/index.ts'): Promise<BundleSize> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    metafile: true,
    logLevel: 'silent',
  });
  const out = result.outputFiles[0]!;
  const meta = Object.values(result.metafile.outputs)[0]!;
  const byPackage = new Map<string, number>();
  let rankTableBytes = 0;
  for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
    const pkg = packageOf(input);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
    if (/js-tiktoken\/.*ranks\/cl100k_base/.test(input)) rankTableBytes += bytesInOutput;
  }
  return { bytes: out.contents.byteLength, gzipBytes: gzipSync(out.contents).byteLength, rankTableBytes, byPackage, code: out.contents };
}

/** What a fresh process pays, in ms: importing the bundle, the first token count (builds the rank map), a second count of other text. */
interface ColdStart {
  readonly importMs: number;
  readonly firstCountMs: number;
  readonly secondCountMs: number;
}

const PROBE = `
const t0 = performance.now();
const m = await import(process.argv[1]);
const t1 = performance.now();
const c = m.tiktokenCounter();
c.count('The quick brown fox jumps over the lazy dog.');
const t2 = performance.now();
c.count('Another sentence, counted once the rank map exists.');
const t3 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, firstCountMs: t2 - t1, secondCountMs: t3 - t2 }));
`;

/** Runs the bundle in fresh node processes (`runs` of them) and returns each one's cold-start figures. */
function coldStarts(code: Uint8Array, runs: number): ColdStart[] {
  const dir = mkdtempSync(join(tmpdir(), 'cachepoint-bundle-'));
  try {
    const file = join(dir, 'core.mjs');
    writeFileSync(file, code);
    const out: ColdStart[] = [];
    for (let i = 0; i < runs; i++) {
      const text = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], { encoding: 'utf8' });
      out.push(JSON.parse(text.trim().split('\n').pop()!) as ColdStart);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function budget(): number {
  const env = process.env.BENCH_BUNDLE_BUDGET;
  if (env === undefined || env === '') return CORE_BUNDLE_BUDGET;
  const n = Number(env);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`BENCH_BUNDLE_BUDGET must be a positive integer of bytes, got ${JSON.stringify(env)}`);
  return n;
}

export default async function bench(): Promise<Row[]> {
  const limit = budget();
  const s = await bundleSize();
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  const others = [...s.byPackage].filter(([p]) => p !== 'cachepoint' && p !== 'js-tiktoken').sort((a, b) => b[1] - a[1]);
  const rows: Row[] = [
    {
      name: 'bundle: core entry (src/index.ts), esbuild minified, platform neutral',
      value: s.bytes,
      unit: 'bytes',
      baseline: `budget ${limit.toLocaleString('en-US')} bytes`,
    },
    { name: 'bundle: core entry ÷ budget', value: Number((s.bytes / limit).toFixed(3)), unit: '×', baseline: 'must be ≤ 1' },
    { name: 'bundle: core entry, gzip', value: s.gzipBytes, unit: 'bytes' },
    {
      name: 'bundle: of which the cl100k rank table',
      value: s.rankTableBytes,
      unit: 'bytes',
      baseline: `${((100 * s.rankTableBytes) / s.bytes).toFixed(1)} % of the bundle`,
    },
    { name: 'bundle: of which cachepoint source', value: s.byPackage.get('cachepoint') ?? 0, unit: 'bytes' },
    {
      name: 'bundle: of which other packages',
      value: others.reduce((a, [, n]) => a + n, 0),
      unit: 'bytes',
      baseline: others.map(([p, n]) => `${p} ${kb(n)}`).join(', ') || 'none',
    },
  ];
  // The rank table is imported statically (a dynamic import would make the synchronous count API async, see
  // docs/benchmarks.md), but its map is built on the first count: import stays cheap, the first count pays.
  const cold = coldStarts(s.code, 5);
  const med = (f: (c: ColdStart) => number) => median(cold.map(f));
  const range = (f: (c: ColdStart) => number) =>
    `${Math.min(...cold.map(f)).toFixed(1)}–${Math.max(...cold.map(f)).toFixed(1)} ms over ${cold.length} processes`;
  rows.push(
    { name: 'bundle: cold import of the bundle, median', value: sig(med((c) => c.importMs)), unit: 'ms', baseline: range((c) => c.importMs) },
    {
      name: 'bundle: first token count (builds the rank map) ÷ cold import',
      value: sig(med((c) => c.firstCountMs / c.importMs)),
      unit: '×',
      baseline: `first count ${range((c) => c.firstCountMs)}`,
    },
    {
      name: 'bundle: second token count, median',
      value: sig(
        med((c) => c.secondCountMs),
        2,
      ),
      unit: 'ms',
      baseline: range((c) => c.secondCountMs),
    },
  );
  if (s.bytes > limit) {
    // Loud: the runner prints the message and exits 1.
    throw new Error(
      `bundle budget exceeded: the core entry bundles to ${s.bytes.toLocaleString('en-US')} bytes, over the budget of ${limit.toLocaleString('en-US')} bytes ` +
        `(rank table ${s.rankTableBytes.toLocaleString('en-US')}, cachepoint ${(s.byPackage.get('cachepoint') ?? 0).toLocaleString('en-US')}, ` +
        `${others.map(([p, n]) => `${p} ${n.toLocaleString('en-US')}`).join(', ')}). Move the new weight behind an entry that needs it (cachepoint/node, a store) or raise the budget with a reason.`,
    );
  }
  return rows;
}

if (isMain(import.meta.url)) {
  for (const row of await bench()) console.log(`${row.name}: ${row.value}${row.unit ? ` ${row.unit}` : ''}${row.baseline ? ` (${row.baseline})` : ''}`);
}

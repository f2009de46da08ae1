/**
 * Simulated prompt cost per strategy on every committed fixture trace.
 *
 * For each `fixtures/*.jsonl`: `compareTrace` with the default policy
 * (conservative) and with `policy: 'economy'`. The peers are the plain
 * full-history requests re-marked the way each peer strategy does it; the
 * baseline of every figure is the ideal bound of the same session measured in
 * the same run (a clairvoyant cache over the plain requests), and cachepoint is
 * also set against the ideal bound of its own requests (`engineIdeal`: same
 * bytes, perfect cache). The best peer is the cheapest peer whose requests the
 * simulated API accepts (a rejected request is priced 0, so a peer with
 * rejections would look cheaper than it is).
 *
 * cachepoint's cost includes its forced recalls (src/replay/recalls.ts): the
 * replay inserts the recall round a removed payload forces, and the extra
 * request and the recall calls' output tokens are priced in; the rows give
 * the count per 100 requests and their cost.
 *
 * A fixture whose conservative comparison takes over 60 s gets no economy run
 * (said in its row).
 *
 * Run: `npm run bench -- cost` or `npx tsx test/bench/cost.ts`.
 */
import { compareTrace, type TraceComparison } from '../../src/replay/compare.js';
import type { StrategySummary } from '../../src/sim/summary.js';
import { formatTrace } from '../../src/trace/format.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { fixtureTexts, formatRows, isMain, parseFixture, sig, type Row } from './util.js';

const SLOW_MS = 60_000;
const NON_PEERS = new Set(['cachepoint', 'ideal', 'ideal_5m']);

interface FixtureResult {
  readonly name: string;
  readonly requests: number;
  readonly conservative: TraceComparison;
  readonly economy?: TraceComparison;
  readonly seconds: number;
}

let lastDetails = '';

/** The wide tables built by the last run (printed by the runner after the rows). */
export function details(): string {
  return lastDetails;
}

function traces(): { name: string; text: string }[] {
  const fixtures = fixtureTexts();
  if (fixtures.length > 0) return fixtures;
  // No fixtures folder: the generator's profiles, in memory.
  return (['coding', 'research', 'fanout', 'idle', 'volatile-tail', 'mixed'] as const).map((profile) => ({
    name: `generated:${profile}`,
    text: formatTrace(generateTrace({ seed: `bench-${profile}`, profile })),
  }));
}

const byId = (c: TraceComparison, id: string): StrategySummary | undefined => c.summaries.find((s) => s.id === id);

function bestPeer(c: TraceComparison): StrategySummary | undefined {
  const peers = c.summaries.filter((s) => !NON_PEERS.has(s.id) && s.rejected === 0);
  return peers.reduce<StrategySummary | undefined>((best, s) => (!best || s.cost < best.cost ? s : best), undefined);
}

const usd = (n: number): string => `$${n.toFixed(4)}`;
const x = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(3));

function engineLine(c: TraceComparison): string {
  const e = byId(c, 'cachepoint')!;
  const r = c.recalls;
  return `×ideal ${x(e.vsIdeal)} · ÷own ideal ${x(c.engineIdeal > 0 ? e.cost / c.engineIdeal : null)} · busts ${e.busts} · rejected ${e.rejected} · forced recalls ${r.count} (${r.per100.toFixed(1)}/100, ${usd(r.cost)} of it)`;
}

function rows(r: FixtureResult): Row[] {
  const c = r.conservative;
  const ideal = byId(c, 'ideal')!;
  const peer = bestPeer(c);
  const cons = byId(c, 'cachepoint')!;
  const econ = r.economy ? byId(r.economy, 'cachepoint') : undefined;
  const out: Row[] = [
    { name: `${r.name}: ideal bound`, value: usd(ideal.cost), baseline: `${r.requests} requests, priced in ${sig(r.seconds, 3)} s` },
    { name: `${r.name}: cachepoint conservative`, value: usd(cons.cost), baseline: engineLine(c) },
    econ
      ? { name: `${r.name}: cachepoint economy`, value: usd(econ.cost), baseline: engineLine(r.economy!) }
      : { name: `${r.name}: cachepoint economy`, value: 'skipped', baseline: `the conservative run took over ${SLOW_MS / 1000} s` },
  ];
  if (peer) {
    out.push({ name: `${r.name}: best peer (${peer.id})`, value: usd(peer.cost), baseline: `×ideal ${x(peer.vsIdeal)} · busts ${peer.busts} · rejected 0` });
    out.push({
      name: `${r.name}: economy ÷ best peer`,
      value: econ ? sig(econ.cost / peer.cost, 3) : '—',
      unit: 'ratio',
      baseline: `conservative ÷ best peer ${sig(cons.cost / peer.cost, 3)}`,
    });
  }
  return out;
}

/** Strategies as rows, fixtures as columns. */
function wide(results: readonly FixtureResult[]): string {
  const ids = results[0]!.conservative.summaries.map((s) => s.id).filter((id) => id !== 'cachepoint');
  const head = ['strategy', ...results.map((r) => r.name.replace(/\.jsonl$/, ''))];
  const cost: string[][] = [];
  const busts: string[][] = [];
  for (const id of ids) {
    cost.push([id, ...results.map((r) => x(byId(r.conservative, id)?.vsIdeal))]);
    if (!id.startsWith('ideal'))
      busts.push([id, ...results.map((r) => `${byId(r.conservative, id)?.busts ?? '—'}/${byId(r.conservative, id)?.rejected ?? '—'}`)]);
  }
  for (const [label, pick] of [
    ['cachepoint (conservative)', (r: FixtureResult) => r.conservative],
    ['cachepoint (economy)', (r: FixtureResult) => r.economy],
  ] as const) {
    cost.push([label, ...results.map((r) => x(pick(r) ? byId(pick(r)!, 'cachepoint')!.vsIdeal : null))]);
    cost.push([
      `${label} ÷ own ideal`,
      ...results.map((r) => {
        const c = pick(r);
        return x(c && c.engineIdeal > 0 ? byId(c, 'cachepoint')!.cost / c.engineIdeal : null);
      }),
    ]);
    busts.push([
      label,
      ...results.map((r) => {
        const e = pick(r) ? byId(pick(r)!, 'cachepoint') : undefined;
        return e ? `${e.busts}/${e.rejected}` : '—';
      }),
    ]);
  }
  for (const [label, pick] of [
    ['forced recalls / 100 requests (conservative)', (r: FixtureResult) => r.conservative],
    ['forced recalls / 100 requests (economy)', (r: FixtureResult) => r.economy],
  ] as const) {
    cost.push([label, ...results.map((r) => (pick(r) ? pick(r)!.recalls.per100.toFixed(1) : '—'))]);
  }
  cost.push([
    'economy ÷ best peer',
    ...results.map((r) => {
      const p = bestPeer(r.conservative);
      const e = r.economy ? byId(r.economy, 'cachepoint') : undefined;
      return x(p && e ? e.cost / p.cost : null);
    }),
  ]);
  cost.push(['ideal bound ($)', ...results.map((r) => byId(r.conservative, 'ideal')!.cost.toFixed(4))]);
  const table = (rs: string[][]): string => {
    const all = [head, ...rs];
    const w = head.map((_, c) => Math.max(...all.map((row) => row[c]!.length)));
    return all
      .map((row) =>
        row
          .map((cell, c) => (c === 0 ? cell.padEnd(w[c]!) : cell.padStart(w[c]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n');
  };
  return [
    "cost ÷ ideal bound (conservative replay; peers are the same under both policies; cachepoint's cost includes its forced recalls):",
    table(cost),
    '',
    'busts / rejected requests:',
    table(busts),
  ].join('\n');
}

export default async function bench(): Promise<Row[]> {
  const results: FixtureResult[] = [];
  for (const { name, text } of traces()) {
    const load = () => parseFixture(text, name);
    const t0 = performance.now();
    const conservative = await compareTrace(load, {});
    const slow = performance.now() - t0 > SLOW_MS;
    const economy = slow ? undefined : await compareTrace(load, { policy: 'economy' });
    results.push({ name, requests: conservative.engine.length, conservative, ...(economy ? { economy } : {}), seconds: (performance.now() - t0) / 1000 });
  }
  lastDetails = results.length > 0 ? wide(results) : '';
  return results.flatMap(rows);
}

if (isMain(import.meta.url)) {
  console.log(formatRows(await bench()));
  console.log(`\n${details()}`);
}

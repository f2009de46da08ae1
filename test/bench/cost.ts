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
import { pruneFloor } from '../../src/replay/floor.js';
import { replayAll } from '../../src/replay/replay.js';
import { SPEND_KINDS, spendByKind, type KindSpend, type SpendKind } from '../../src/replay/spend.js';
import { idealBound } from '../../src/sim/ideal.js';
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
  /** The prune floor of the session (src/replay/floor.ts), dollars. */
  readonly floor: number;
  /** Where economy's dollars go (src/replay/spend.ts). */
  readonly spend?: Readonly<Record<SpendKind, KindSpend>>;
  /** Conservative's excess over its own ideal, split by where it arises (dollars). */
  readonly gap: OwnIdealGap;
  readonly seconds: number;
}

/**
 * Where a run's cost exceeds the ideal bound of its own requests: the requests
 * that follow an idle gap of 5 to 60 minutes (the clairvoyant ideal wrote the
 * prefix with a 1-hour TTL before the gap, knowing it was coming), the
 * session's last request (the ideal sends its new tokens uncached, knowing no
 * request follows), and everything else.
 */
interface OwnIdealGap {
  readonly afterIdle: number;
  readonly last: number;
  readonly other: number;
}

function ownIdealGap(c: TraceComparison): OwnIdealGap {
  const requests = c.engine.map((r) => ({ at: r.at, params: r.request }));
  const ideal = idealBound(requests).ideal.requests;
  const gap = { afterIdle: 0, last: 0, other: 0 };
  c.engineResults.forEach((r, i) => {
    const d = (r.cost?.total ?? 0) - ideal[i]!.cost;
    const idle = i > 0 ? c.engine[i]!.at - c.engine[i - 1]!.at : 0;
    const ttl = c.engine[i]!.rendered.profile.ttlMs;
    if (idle >= ttl['5m'] && idle < ttl['1h']) gap.afterIdle += d;
    else if (i === c.engine.length - 1) gap.last += d;
    else gap.other += d;
  });
  return gap;
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
  const own = c.engineIdeal;
  out.push({
    name: `${r.name}: conservative ÷ own ideal`,
    value: x(own > 0 ? cons.cost / own : null),
    unit: 'ratio',
    baseline: `excess ${usd(cons.cost - own)}: after 5–60 min idle gaps ${usd(r.gap.afterIdle)}, last request ${usd(r.gap.last)}, other ${usd(r.gap.other)}`,
  });
  if (peer) {
    out.push({ name: `${r.name}: best peer (${peer.id})`, value: usd(peer.cost), baseline: `×ideal ${x(peer.vsIdeal)} · busts ${peer.busts} · rejected 0` });
    out.push({
      name: `${r.name}: prune floor ÷ best peer`,
      value: sig(r.floor / peer.cost, 3),
      unit: 'ratio',
      baseline: `every tool result > 300 chars seen once, then a note; clairvoyant cache; no recall charged (${usd(r.floor)})`,
    });
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
  cost.push([
    'prune floor ÷ best peer',
    ...results.map((r) => {
      const p = bestPeer(r.conservative);
      return x(p ? r.floor / p.cost : null);
    }),
  ]);
  cost.push([
    'conservative excess over own ideal after 5–60 min gaps (%)',
    ...results.map((r) => (r.conservative.engineIdeal > 0 ? ((100 * r.gap.afterIdle) / r.conservative.engineIdeal).toFixed(2) : '—')),
  ]);
  cost.push([
    'conservative excess over own ideal at the last request (%)',
    ...results.map((r) => (r.conservative.engineIdeal > 0 ? ((100 * r.gap.last) / r.conservative.engineIdeal).toFixed(2) : '—')),
  ]);
  cost.push(['ideal bound ($)', ...results.map((r) => byId(r.conservative, 'ideal')!.cost.toFixed(4))]);
  const table = (rs: string[][], first = 'strategy'): string => {
    const all = [[first, ...head.slice(1)], ...rs];
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
  const spend: string[][] = SPEND_KINDS.map((k) => [
    k,
    ...results.map((r) => {
      const e = r.economy ? byId(r.economy, 'cachepoint')!.cost : 0;
      const s = r.spend?.[k];
      return s && e > 0 ? `${((100 * s.total) / e).toFixed(1)} (${((100 * s.read) / e).toFixed(1)})` : '—';
    }),
  ]);
  return [
    "cost ÷ ideal bound (conservative replay; peers are the same under both policies; cachepoint's cost includes its forced recalls):",
    table(cost),
    '',
    "where economy's dollars go, % of its cost (in brackets: re-reads from cache, the most removing that kind after its first showing could save):",
    table(spend, 'kind'),
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
    const plain = await replayAll(load(), { plain: true });
    const floor = pruneFloor(plain.map((p) => ({ at: p.at, params: p.request })));
    results.push({
      name,
      requests: conservative.engine.length,
      conservative,
      ...(economy ? { economy, spend: spendByKind(economy) } : {}),
      floor,
      gap: ownIdealGap(conservative),
      seconds: (performance.now() - t0) / 1000,
    });
  }
  lastDetails = results.length > 0 ? wide(results) : '';
  return results.flatMap(rows);
}

if (isMain(import.meta.url)) {
  console.log(formatRows(await bench()));
  console.log(`\n${details()}`);
}

/**
 * Simulated prompt cost per provider on every committed fixture: Anthropic,
 * Bedrock Converse (Claude, priced through its cachePoint blocks), OpenAI
 * before GPT-5.6 (gpt-5.4, automatic prefix caching) and from GPT-5.6
 * (gpt-5.6-terra, markers). For each: requests the provider would refuse
 * (every run, ours and the peers'), cachepoint (conservative) ÷ the best peer
 * *of that provider*, and ÷ the ideal bound of its own requests, measured in
 * the same run. Forced recalls are off here (cost.ts prices them); this table
 * is about the mapping and the cache rules.
 *
 * Run: `npm run bench -- providers` or `npx tsx test/bench/providers.ts`.
 */
import type { ProviderId } from '../../src/models/caching.js';
import { compareTrace } from '../../src/replay/compare.js';
import { fixtureTexts, formatRows, isMain, parseFixture, sig, type Row } from './util.js';

const PROVIDERS: readonly { readonly label: string; readonly provider: ProviderId; readonly model?: string }[] = [
  { label: 'anthropic', provider: 'anthropic' },
  { label: 'bedrock', provider: 'bedrock' },
  { label: 'openai gpt-5.4', provider: 'openai', model: 'gpt-5.4' },
  { label: 'openai gpt-5.6-terra', provider: 'openai', model: 'gpt-5.6-terra' },
];

const NON_PEERS = new Set(['cachepoint', 'ideal', 'ideal_5m', 'none']);

let table = '';

/** The fixtures × providers table of the last run. */
export function details(): string {
  return table;
}

export default async function bench(): Promise<Row[]> {
  const rows: Row[] = [];
  const grid: string[][] = [['fixture', ...PROVIDERS.map((p) => p.label)]];
  let refusedTotal = 0;
  for (const { name, text } of fixtureTexts()) {
    const events = parseFixture(text, name);
    const line = [name.replace(/\.jsonl$/, '')];
    for (const p of PROVIDERS) {
      const c = await compareTrace(() => events, { provider: p.provider, ...(p.model ? { model: p.model } : {}), recalls: false });
      const ours = c.summaries.find((s) => s.id === 'cachepoint')!;
      const peers = c.summaries.filter((s) => !NON_PEERS.has(s.id) && s.rejected === 0);
      const best = peers.reduce((a, s) => (s.cost < a.cost ? s : a));
      const refused = c.summaries.reduce((n, s) => n + s.rejected, 0);
      refusedTotal += refused;
      const vsPeer = ours.cost / best.cost;
      const vsOwn = c.engineIdeal > 0 ? ours.cost / c.engineIdeal : Number.NaN;
      line.push(`×${vsPeer.toFixed(3)} peer · ×${vsOwn.toFixed(3)} own ideal · ${refused} refused`);
      rows.push({
        name: `${name}: ${p.label}`,
        value: sig(vsPeer, 4),
        unit: '÷ best peer',
        baseline: `best peer ${best.id} $${best.cost.toFixed(4)}; ÷ own ideal ${sig(vsOwn, 4)}; busts ${ours.busts}; refused ${refused}`,
      });
    }
    grid.push(line);
  }
  rows.push({ name: 'requests refused, every provider, every run', value: refusedTotal, unit: 'requests', baseline: 'must be 0' });
  const w = grid[0]!.map((_, i) => Math.max(...grid.map((r) => r[i]!.length)));
  table = grid
    .map((r) =>
      r
        .map((c, i) => c.padEnd(w[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  return rows;
}

if (isMain(import.meta.url)) {
  const rows = await bench();
  console.log(formatRows(rows));
  console.log(`\n${details()}`);
}

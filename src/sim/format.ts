/**
 * Plain-text and JSON output for `cachepoint simulate`: deterministic (no
 * colours, no clock, fixed column widths), so CLI output can be snapshotted.
 */
import type { StrategySummary } from './summary.js';
import type { SimResult } from './types.js';

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const usd = (n: number): string => `$${n.toFixed(4)}`;
const times = (n: number | null): string => (n === null ? '—' : `×${n.toFixed(3)}`);

/** A plain table; `left` lists the left-aligned columns (the others are right-aligned numbers). */
function table(header: readonly string[], rows: readonly (readonly string[])[], left: readonly number[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (left.includes(c) ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * One line per request: index, seconds since the first request, read, written 5m / 1h,
 * uncached input, cost, and a bust or rejection mark.
 *
 * @example
 * console.log(formatRequestTable(simulateAll(requests)));
 */
export function formatRequestTable(results: readonly SimResult[], marks?: ReadonlyMap<number, string>): string {
  const t0 = results[0]?.at ?? 0;
  const rows = results.map((r) => {
    const at = `+${((r.at - t0) / 1000).toFixed(1)}s`;
    if (r.rejected) return [`${r.index}`, at, '—', '—', '—', '—', '—', `rejected ${r.rejected.status}: ${r.rejected.message}`];
    const u = r.usage;
    const mark = [r.explain.bust ? `BUST −${int(r.explain.missedTokens)}` : '', marks?.get(r.index) ?? ''].filter(Boolean).join(' ');
    return [
      `${r.index}`,
      at,
      int(u.cache_read_input_tokens),
      int(u.cache_creation.ephemeral_5m_input_tokens),
      int(u.cache_creation.ephemeral_1h_input_tokens),
      int(u.input_tokens),
      usd(r.cost.total),
      mark,
    ];
  });
  return table(['#', 'at', 'read', 'write 5m', 'write 1h', 'uncached', 'cost', ''], rows, [0, 7]);
}

/**
 * One line per strategy: cost, ×none, ×ideal, busts, rejected; and, when a run
 * counted forced recalls, recalls per 100 requests and what they cost (already
 * inside that run's cost; peers force none, the ideal bounds show —).
 */
export function formatTotals(summaries: readonly StrategySummary[]): string {
  const recalls = summaries.some((s) => s.recalls);
  const rows = summaries.map((s) => [
    s.id,
    s.label,
    usd(s.cost),
    times(s.vsNone),
    times(s.vsIdeal),
    `${s.busts}`,
    `${s.rejected}`,
    ...(recalls ? recallCells(s) : []),
  ]);
  return table(['strategy', 'label', 'cost', 'vs none', 'vs ideal', 'busts', 'rejected', ...(recalls ? ['recalls', 'recall cost'] : [])], rows, [0, 1]);
}

/**
 * The `recalls` and `recall cost` cells of a totals row (simulate's table and the HTML report draw the same):
 * `3 (1.7/100)` and its dollars for a run that counted forced recalls; `0` for a peer that forces none; `—` for
 * an ideal bound (it has no requests to recall in).
 */
export function recallCells(s: StrategySummary): readonly [string, string] {
  if (s.recalls) return [`${s.recalls.count} (${s.recalls.per100.toFixed(1)}/100)`, usd(s.recalls.cost)];
  return s.id.startsWith('ideal') ? ['—', '—'] : ['0', usd(0)];
}

/** The per-request plan, several lines per request (`simulate --explain`). */
export function formatExplain(results: readonly SimResult[]): string {
  const t0 = results[0]?.at ?? 0;
  const out: string[] = [];
  for (const r of results) {
    const head = `#${r.index} +${((r.at - t0) / 1000).toFixed(1)}s ${r.model}`;
    if (r.rejected) {
      out.push(`${head}: rejected ${r.rejected.status}: ${r.rejected.message}`);
      continue;
    }
    const e = r.explain;
    out.push(`${head}: ${int(e.totalTokens)} tokens in ${e.positions} positions`);
    out.push(
      e.change ? `  changed: position ${e.change.position} (${e.change.tier}), ${e.change.cause}` : '  changed: nothing before the end of the previous request',
    );
    for (const bp of e.markers) {
      const found = bp.hit ? `found ${int(bp.hit.tokens)} at position ${bp.hit.position} (${bp.hit.back} back)` : 'found nothing';
      out.push(`  marker${bp.index} ${bp.path} @${bp.position} ${bp.ttl} ${int(bp.tokens)} tok: ${bp.outcome.replace('_', ' ')}; ${found}`);
    }
    if (e.markers.length === 0) out.push('  no markers');
    const u = r.usage;
    out.push(
      `  usage: read ${int(u.cache_read_input_tokens)}, write 5m ${int(u.cache_creation.ephemeral_5m_input_tokens)}, ` +
        `write 1h ${int(u.cache_creation.ephemeral_1h_input_tokens)}, input ${int(u.input_tokens)}; cost ${usd(r.cost.total)}`,
    );
    if (e.bust) out.push(`  BUST: a warm entry at position ${e.missedPosition} held ${int(e.missedTokens)} more tokens than were read`);
  }
  return out.join('\n');
}

/** The JSON shape of `simulate --json`: per-request rows and, when given, the strategy totals. */
export function simulationJson(
  results: readonly SimResult[],
  summaries?: readonly StrategySummary[],
  forced?: ReadonlyMap<number, unknown>,
): { readonly requests: readonly unknown[]; readonly totals?: readonly StrategySummary[] } {
  const requests = results.map((r) => {
    const recall = forced?.get(r.index);
    const extra = recall === undefined ? {} : { forcedRecall: recall };
    return r.rejected
      ? { index: r.index, at: r.at, model: r.model, rejected: r.rejected, ...extra }
      : { index: r.index, at: r.at, model: r.model, usage: r.usage, cost: r.cost, explain: r.explain, ...extra };
  });
  return summaries ? { requests, totals: summaries } : { requests };
}

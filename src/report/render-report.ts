/**
 * The HTML report: one self-contained file (inline CSS, SVG and a small
 * script; no network, no fonts, no CDN) that opens from disk. Pure: the same
 * data and `generatedAt` give the same bytes. Charts, totals and events are
 * drawn here as static HTML/SVG (readable without script); the script draws
 * the block map of the request you click, from the JSON data block.
 *
 * Every trace-derived string goes through {@link escapeHtml}; the data block
 * has every `<` escaped as `\u003c`.
 */
import { recallCells } from '../sim/format.js';
import { CLIENT_JS } from './client.js';
import type { ReportData, ReportRequest, ReportUsage } from './data.js';
import { escapeHtml as e, jsonForScript } from './escape-html.js';

export interface RenderReportOptions {
  /** Shown in the header; injected so the output is deterministic. */
  readonly generatedAt: string;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const usd = (n: number): string => `$${n.toFixed(4)}`;
const times = (n: number | null): string => (n === null ? '—' : `×${n.toFixed(3)}`);
const px = (n: number): string => (Math.round(n * 100) / 100).toString();

const CSS = `
:root { --read:#43a047; --w5:#fb8c00; --w1:#e65100; --input:#90a4ae; --ideal:#1565c0; --ink:#1c2430; --muted:#5f6b7a; --line:#dde3ea; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); margin: 0 auto; padding: 16px 24px 48px; max-width: 1200px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 8px 0; }
.meta { color: var(--muted); margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; background: #f5f7fa; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.cachepoint td { font-weight: 600; background: #eef7ee; }
.headline { font-size: 15px; margin: 8px 0; }
.legend span { display: inline-block; margin-right: 14px; color: var(--muted); }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
.chart { overflow-x: auto; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
svg text { font: 10px system-ui, sans-serif; fill: var(--muted); }
.read { fill: var(--read); } .w5 { fill: var(--w5); } .w1 { fill: var(--w1); } .input { fill: var(--input); }
.peer { opacity: .45; }
.bust { fill: #c62828; }
.ideal { fill: none; stroke: var(--ideal); stroke-width: 1.5; stroke-dasharray: 4 2; }
.req { cursor: pointer; } .req .hit { fill: transparent; } .req:hover .hit { fill: rgba(21,101,192,.08); }
.req.selected .hit { fill: rgba(21,101,192,.18); }
.events td button, nav button { font: inherit; cursor: pointer; }
.events td button { border: 0; background: none; color: var(--ideal); text-decoration: underline; padding: 0; }
.ev-bust td, .ev-rejected td { color: #b71c1c; } .ev-idle td { color: var(--muted); }
nav { margin: 8px 0; } nav input { width: 5em; }
#blockmap { border: 1px solid var(--line); border-radius: 4px; padding: 8px 12px; min-height: 60px; }
.facts { margin: 4px 0 8px; padding-left: 18px; } .facts .change { font-weight: 600; }
.strip { width: 100%; height: 46px; }
.strip { overflow: visible; } .strip circle.cp { fill: #1c2430; } .strip text.cp { fill: #fff; font-size: 9px; font-weight: 700; text-anchor: middle; }
.strip line.mark { stroke: #1c2430; stroke-width: 1.2; }
.cp { display: inline-block; min-width: 15px; height: 15px; line-height: 15px; border-radius: 8px; background: #1c2430; color: #fff; font-size: 10px; font-weight: 700; text-align: center; margin-right: 1px; }
.blk { stroke: #fff; stroke-width: .4; }
.seg-envelope.blk { fill: #7e57c2; } .seg-timeline.blk { fill: #42a5f5; } .seg-tail.blk { fill: #bdbdbd; }
.blk.summary { fill: #26a69a; } .blk.hidden { fill: #eceff1; stroke: #90a4ae; }
.blk.new { fill: #ffca28; } .blk.editable { stroke: #1565c0; stroke-width: 1.2; }
table.blocks td { font-size: 12px; } table.blocks tr.group td { background: #f5f7fa; font-weight: 600; }
table.blocks tr.hidden td { color: var(--muted); font-style: italic; } table.blocks tr.marked td.pt { font-weight: 600; }
td.path { font-family: ui-monospace, Menlo, Consolas, monospace; white-space: nowrap; }
td.preview { color: var(--muted); word-break: break-word; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`;

/** The per-request stacked token bars (cachepoint solid, peer faded) and, below, cost bars with the ideal as a line. */
function charts(d: ReportData): string {
  const n = d.requests.length;
  const left = 56;
  // Fill about 1,100 px; past ~180 requests the chart scrolls sideways.
  const slot = Math.max(6, Math.min(40, Math.floor((1100 - left) / Math.max(n, 1))));
  const bar = (slot - 2) / 2;
  const width = Math.max(640, left + n * slot + 16);
  const tokenH = 180;
  const costH = 140;
  const sumU = (u: ReportUsage): number => u.read + u.write5m + u.write1h + u.input;
  const maxTokens = Math.max(1, ...d.requests.flatMap((r) => [sumU(r.cp), r.peer ? sumU(r.peer) : 0]));
  const maxCost = Math.max(1e-9, ...d.requests.flatMap((r) => [r.cp.cost, r.peer?.cost ?? 0, r.ideal ?? 0]));
  const stack = (u: ReportUsage | null, x: number, cls: string): string => {
    if (!u) return '';
    let y = tokenH;
    let out = '';
    for (const [k, v] of [
      ['read', u.read],
      ['w1', u.write1h],
      ['w5', u.write5m],
      ['input', u.input],
    ] as const) {
      if (v <= 0) continue;
      const h = (v / maxTokens) * (tokenH - 10);
      y -= h;
      out += `<rect class="${k}${cls}" x="${px(x)}" y="${px(y)}" width="${px(bar)}" height="${px(h)}"/>`;
    }
    if (u.bust) out += `<rect class="bust" x="${px(x)}" y="${px(tokenH + 2)}" width="${px(bar)}" height="3"/>`;
    return out;
  };
  const tip = (r: ReportRequest): string =>
    `#${r.index} turn ${r.turn} round ${r.round} +${r.t}s — cachepoint: read ${int(r.cp.read)}, write ${int(r.cp.write5m + r.cp.write1h)}, uncached ${int(r.cp.input)}, ${usd(r.cp.cost)}; ` +
    (r.peer
      ? `${d.peer.id}: read ${int(r.peer.read)}, write ${int(r.peer.write5m + r.peer.write1h)}, uncached ${int(r.peer.input)}, ${usd(r.peer.cost)}; ideal ${usd(r.ideal ?? 0)}`
      : `recall round: an extra request only cachepoint sends (no ${d.peer.id} or ideal counterpart)`);
  let tokens = '';
  let costs = '';
  let ideal = '';
  for (const r of d.requests) {
    const x = left + r.index * slot;
    tokens += `<g class="req" data-i="${r.index}"><title>${e(tip(r))}</title><rect class="hit" x="${px(x - 1)}" y="0" width="${slot}" height="${tokenH + 6}"/>${stack(r.cp, x, '')}${stack(r.peer, x + bar, ' peer')}</g>`;
    const ch = (v: number): number => (v / maxCost) * (costH - 10);
    costs +=
      `<g class="req" data-i="${r.index}"><title>${e(tip(r))}</title><rect class="hit" x="${px(x - 1)}" y="0" width="${slot}" height="${costH}"/>` +
      `<rect class="read" x="${px(x)}" y="${px(costH - ch(r.cp.cost))}" width="${px(bar)}" height="${px(ch(r.cp.cost))}"/>` +
      (r.peer ? `<rect class="input peer" x="${px(x + bar)}" y="${px(costH - ch(r.peer.cost))}" width="${px(bar)}" height="${px(ch(r.peer.cost))}"/>` : '') +
      '</g>';
    if (r.ideal !== null) ideal += `${ideal ? ' ' : ''}${px(x + bar)},${px(costH - ch(r.ideal))}`;
  }
  const axis = (h: number, label: string): string =>
    `<line x1="${left - 4}" y1="${h}" x2="${width - 8}" y2="${h}" stroke="#dde3ea"/><text x="4" y="12">${e(label)}</text>`;
  return `
<div class="legend"><span><i class="read" style="background:var(--read)"></i>read</span><span><i style="background:var(--w5)"></i>written 5m</span><span><i style="background:var(--w1)"></i>written 1h</span><span><i style="background:var(--input)"></i>uncached</span><span><i style="background:#c62828"></i>bust</span><span>left bar: cachepoint, right (faded): ${e(d.peer.id)}</span></div>
<div class="chart"><svg id="chart-tokens" width="${width}" height="${tokenH + 20}" role="img" aria-label="tokens per request">${axis(tokenH, `tokens (max ${int(maxTokens)})`)}${tokens}</svg></div>
<div class="legend"><span><i style="background:var(--read)"></i>cachepoint cost</span><span><i style="background:var(--input);opacity:.45"></i>${e(d.peer.id)} cost</span><span><i style="background:var(--ideal)"></i>ideal bound (dashed)</span></div>
<div class="chart"><svg id="chart-cost" width="${width}" height="${costH + 14}" role="img" aria-label="cost per request">${axis(costH, `cost (max ${usd(maxCost)})`)}${costs}<polyline class="ideal" points="${ideal}"/></svg></div>`;
}

function totals(d: ReportData): string {
  const cp = d.totals.find((s) => s.id === 'cachepoint');
  const none = d.totals.find((s) => s.id === 'none');
  const ideal = d.totals.find((s) => s.id === 'ideal');
  // simulate's columns, shown when simulate shows them (a run that counted forced recalls).
  const withRecalls = d.totals.some((s) => s.recalls);
  const rows = d.totals
    .map((s) => {
      // Against a bound a saving means nothing: blank for the ideal rows.
      const pct = cp && s.id !== 'cachepoint' && !s.id.startsWith('ideal') && s.cost > 0 ? ((s.cost - cp.cost) / s.cost) * 100 : undefined;
      const delta = pct === undefined ? '' : `${Math.abs(pct) < 0.05 ? '0.0' : pct.toFixed(1)}%`;
      const r = s.recalls;
      const attrs = r ? ` data-recalls="${r.count}" data-recalls-per100="${r.per100}" data-recall-cost="${r.cost}"` : '';
      const cells = withRecalls
        ? recallCells(s)
            .map((c) => `<td class="num">${c}</td>`)
            .join('')
        : '';
      return `<tr class="${s.id === 'cachepoint' ? 'cachepoint' : ''}" data-strategy="${e(s.id)}" data-cost="${s.cost}"${attrs}><td>${e(s.id)}</td><td>${e(s.label)}</td><td class="num">${usd(s.cost)}</td><td class="num">${times(s.vsNone)}</td><td class="num">${times(s.vsIdeal)}</td><td class="num">${s.busts}</td><td class="num">${s.rejected}</td>${cells}<td class="num">${delta}</td></tr>`;
    })
    .join('\n');
  const forced = cp?.recalls;
  const recalls =
    forced && forced.count > 0
      ? `; ${forced.count} forced recalls in ${forced.rounds} extra rounds (${forced.per100.toFixed(1)} per 100 requests), ${usd(forced.cost)}, included`
      : '';
  const headline = cp
    ? `<p class="headline" id="headline">cachepoint: <b>${usd(cp.cost)}</b>${none ? ` vs ${usd(none.cost)} without caching (${times(cp.vsNone)})` : ''}${ideal ? `; ideal bound ${usd(ideal.cost)} (${times(cp.vsIdeal)})` : ''}${d.engineIdeal > 0 ? `; vs the ideal bound of its own requests ×${(cp.cost / d.engineIdeal).toFixed(4)}` : ''}${recalls}.</p>`
    : '';
  const r = d.recorded;
  const recorded =
    r && cp
      ? `<p class="headline" id="recorded">As recorded in the log (the usage the provider reported for ${r.withUsage} of ${r.responses} responses): <b>${usd(r.cost)}</b>, ${int(r.cacheRead)} tokens read from the cache, ${int(r.cacheWrite)} written, ${int(r.input)} uncached. cachepoint on the same session: ${usd(cp.cost)} (×${r.cost > 0 ? (cp.cost / r.cost).toFixed(3) : '—'}).${r.estimatedEnvelope ? ' <b>The system prompt and tool definitions were estimated</b> (the log does not carry them; see docs/import.md), so compare with care.' : ''}</p>`
      : '';
  return `${headline}
${recorded}
<table id="totals"><tr><th>strategy</th><th>label</th><th class="num">cost</th><th class="num">vs none</th><th class="num">vs ideal</th><th class="num">busts</th><th class="num">rejected</th>${withRecalls ? '<th class="num">recalls</th><th class="num">recall cost</th>' : ''}<th class="num">cachepoint saves</th></tr>
${rows}
</table>${withRecalls ? '\n<p class="meta" id="recalls-note">recalls: payloads a later call needed after cachepoint removed them, each read back in an extra round (per 100 requests of the trace); recall cost: those rounds\' requests and output, already inside cost.</p>' : ''}`;
}

function toolCache(d: ReportData): string {
  const t = d.toolCache;
  if (!t) return '';
  const rows = t.tools
    .map(
      (r) =>
        `<tr><td>${e(r.tool)}</td><td class="num">${r.calls}</td><td class="num">${r.hits}</td><td class="num">${(r.savedMs / 1000).toFixed(1)} s</td><td class="num">${int(r.savedChars)}</td></tr>`,
    )
    .join('\n');
  return `<h2>Tool-result cache</h2>
<p class="headline" id="toolcache-headline">${t.hits} of ${t.calls} tool calls would be replayed from the cache (TTL ${t.ttlTurns} turns; file reads evicted by writes, Bash evicts every file entry), saving ${(t.savedMs / 1000).toFixed(1)} s of tool time and ${int(t.savedChars)} characters of re-run output.</p>
<table id="toolcache"><tr><th>tool</th><th class="num">calls</th><th class="num">hits</th><th class="num">time saved</th><th class="num">chars replayed</th></tr>
${rows}
</table>`;
}

function events(d: ReportData): string {
  if (d.events.length === 0) return '<p>No busts, misses, idle gaps or changes: every request only appended.</p>';
  const counts = new Map<string, number>();
  for (const ev of d.events) counts.set(ev.type, (counts.get(ev.type) ?? 0) + 1);
  const summary = [...counts].map(([k, v]) => `${v} ${k}`).join(', ');
  const rows = d.events
    .map((ev) => `<tr class="ev-${ev.type}"><td><button data-i="${ev.request}">#${ev.request}</button></td><td>${ev.type}</td><td>${e(ev.text)}</td></tr>`)
    .join('\n');
  return `<p>${e(summary)}.</p>
<table class="events" id="events"><tr><th>request</th><th>what</th><th>detail</th></tr>
${rows}
</table>`;
}

/**
 * Renders the report as one HTML document.
 *
 * @example
 * const html = renderReport(buildReportData(await compareTrace(load), { title: 'session.jsonl' }), { generatedAt: new Date().toISOString() });
 */
export function renderReport(data: ReportData, options: RenderReportOptions): string {
  const n = data.requests.length;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cachepoint report: ${e(data.title)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>cachepoint report: ${e(data.title)}</h1>
<p class="meta">${n} requests · model ${e(data.model)} · ${e(data.provider)} prices · policy ${e(data.policy)} · peer ${e(data.peer.id)} (${e(data.peer.label)}) · generated ${e(options.generatedAt)}</p>
</header>
<h2>Totals</h2>
${totals(data)}
${toolCache(data)}
<h2>Requests</h2>
<p class="meta">Per request: tokens read from the cache, written to it and sent uncached, then the prompt's cost. Click a request for its block map.</p>
${charts(data)}
<h2>Block map</h2>
<nav><button id="nav-prev" type="button">◀ previous</button> request <input id="nav-index" type="number" min="0" max="${Math.max(0, n - 1)}" value="0"> of ${n} <button id="nav-next" type="button">next ▶</button></nav>
<div id="blockmap"><noscript>The block map needs JavaScript; the charts, totals and events above do not.</noscript></div>
<h2>Busts, misses, idle gaps and changes</h2>
${events(data)}
<footer>Prices and cache behaviour from cachepoint's provider cache simulator (docs/simulator.md). Cache points: <span class="cp">0</span> tool catalog, <span class="cp">1</span> envelope, <span class="cp">2</span> previous turn, <span class="cp">3</span> pre-tail, <span class="cp">4</span> tail point. Block map colours: envelope purple, timeline blue, summary teal, hidden/pruned pale, new since the previous request yellow, editable zone outlined.</footer>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${CLIENT_JS}</script>
</body>
</html>
`;
}

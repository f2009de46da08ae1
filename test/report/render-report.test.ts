/**
 * The HTML report as a pure function: byte-stable snapshot of the demo
 * session, totals identical to the comparison `simulate` prints, every trace
 * string escaped, a 200-request session under 2 MB, and nothing loaded from
 * the network.
 */
import { describe, expect, it } from 'vitest';
import { buildReportData } from '../../src/report/data.js';
import { escapeHtml, jsonForScript } from '../../src/report/escape-html.js';
import { renderReport } from '../../src/report/render-report.js';
import { compareTrace } from '../../src/replay/compare.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { GENERATED_AT, HOSTILE, hostileTrace, reportOf } from './helpers.js';

describe('renderReport', () => {
  it('renders the demo session to the committed snapshot, byte for byte, twice the same', async () => {
    const { html } = await reportOf({ file: 'fixtures/demo.jsonl' });
    const again = await reportOf({ file: 'fixtures/demo.jsonl' });
    expect(again.html).toBe(html);
    await expect(html).toMatchFileSnapshot('__snapshots__/demo-report.html');
  });

  it('carries the totals of the comparison unchanged, and one request per model call', async () => {
    const { data } = await reportOf({ file: 'fixtures/demo.jsonl' });
    expect(data.requests).toHaveLength(16);
    const cp = data.totals.find((s) => s.id === 'cachepoint')!;
    expect(cp.cost).toBeCloseTo(
      data.requests.reduce((n, r) => n + r.cp.cost, 0),
      12,
    );
    const peer = data.totals.find((s) => s.id === data.peer.id)!;
    expect(peer.cost).toBeCloseTo(
      data.requests.reduce((n, r) => n + (r.peer?.cost ?? 0), 0),
      12,
    );
    // The default peer is the cheapest baseline that caches.
    const baselines = data.totals.filter((s) => !['none', 'cachepoint', 'ideal', 'ideal_5m'].includes(s.id));
    expect(peer.cost).toBe(Math.min(...baselines.map((s) => s.cost)));
    // Every request's block runs expand to its stream; cache points index into it.
    for (const r of data.requests) {
      const n = r.runs.reduce((k, [, c]) => k + c, 0);
      expect(r.tailStart).toBeLessThanOrEqual(n);
      for (const p of r.points) expect(p.index).toBeLessThan(r.tailStart);
    }
  });

  it('shows tool output with <script> and </style> as text: nothing from the trace reaches the markup unescaped', async () => {
    const { html, data } = await reportOf({ text: hostileTrace() });
    // Exactly the report's own two script blocks and one style block.
    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html.match(/<style\b/g)).toHaveLength(1);
    expect(html.match(/<\/style>/g)).toHaveLength(1);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<!--');
    // The data block keeps the text, with every < as \u003c, and parses back to the same data.
    const block = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(block).not.toContain('<');
    expect(JSON.parse(block)).toEqual(JSON.parse(JSON.stringify(data)));
    expect(JSON.stringify(data)).toContain('toolu_</script>x');
    // Trace strings drawn by the server side (titles, events) are entity-escaped.
    const titled = renderReport({ ...data, title: HOSTILE }, { generatedAt: GENERATED_AT });
    expect(titled).toContain(escapeHtml(HOSTILE));
    expect(titled.match(/<script\b/g)).toHaveLength(2);
  });

  it('loads nothing from anywhere: no external URL in src, href or CSS', async () => {
    const { html } = await reportOf({ file: 'fixtures/demo.jsonl' });
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
    expect(html).not.toMatch(/@import|url\(/i);
  });

  // Replaying and pricing 200 requests is the slow part (~10 s on a quiet 2-core box): a wide timeout, no speed claim.
  it('keeps a 200-request session under 2 MB', { timeout: 180_000 }, async () => {
    const events = generateTrace({ seed: 16, profile: 'coding', requests: 200 });
    const comparison = await compareTrace(() => events);
    const html = renderReport(buildReportData(comparison, { title: '200 requests' }), { generatedAt: GENERATED_AT });
    expect(comparison.engine).toHaveLength(200);
    const bytes = Buffer.byteLength(html);
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('refuses an unknown peer strategy, naming the known ones', async () => {
    const comparison = await compareTrace(() => generateTrace({ seed: 1, profile: 'coding', requests: 3 }));
    expect(() => buildReportData(comparison, { title: 't', peer: 'nope' })).toThrow(/unknown peer strategy "nope"; known: .*ide4/);
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toMatchInlineSnapshot(`"&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"`);
  });
  it('writes JSON that cannot close a script block', () => {
    expect(jsonForScript({ s: '</script><!--\u2028' })).toMatchInlineSnapshot(`"{"s":"\\u003c/script>\\u003c!--\\u2028"}"`);
  });
});

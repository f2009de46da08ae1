/**
 * The report in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core): it opens from disk with no console error and no request
 * beyond the file itself, its totals are `simulate --json`'s, a click on a
 * request draws that request's block map, and hostile trace text stays text.
 * A screenshot is written for the closing note (CACHEPOINT_REPORT_SCREENSHOT,
 * default: the temp dir).
 *
 * Without chromium: outside CI the suite is skipped with one loud line; with
 * CI=true it fails (.ci/run installs chromium).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecallTally, StrategySummary } from '../../src/sim/summary.js';
import { cli } from '../cli/run.js';
import { hostileTrace, recallRoundReport, reportOf } from './helpers.js';

const CHROMIUM = process.env.CACHEPOINT_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true';

if (!HAVE_CHROMIUM && !IN_CI) {
  console.warn(`\n!!! SKIPPING the report's browser tests: no chromium at ${CHROMIUM} (apt-get install chromium, or set CACHEPOINT_CHROMIUM) !!!\n`);
}

if (!HAVE_CHROMIUM && IN_CI) {
  describe('report in a browser (CI)', () => {
    it('has chromium to test with', () => {
      expect.fail(`CI=true but no chromium at ${CHROMIUM}: .ci/run must install it (apt-get install chromium)`);
    });
  });
}

// A loaded 2-core CI box runs this next to the whole suite: wide timeouts, no speed claim.
describe.runIf(HAVE_CHROMIUM)('report in headless Chromium', { timeout: 120_000 }, () => {
  let dir: string;
  let context: BrowserContext;
  let demoUrl: string;
  let simulated: { totals: StrategySummary[] };
  let recallsUrl: string;
  let recallsSimulated: { totals: StrategySummary[]; recalls: RecallTally };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cachepoint-report-'));
    const { chromium } = await import('playwright-core');
    // A fresh profile every run; playwright takes the profile dir as an argument, not a flag.
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    const out = join(dir, 'demo.html');
    // compaction.jsonl: a session whose removals force recall rounds (the totals' recall columns are not all 0).
    const recallsOut = join(dir, 'compaction.html');
    const [report, simulate, recallsReport, recallsSimulate] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl', '--out', out, '--generated-at', '2026-03-02T09:00:00.000Z'),
      cli('simulate', 'fixtures/demo.jsonl', '--json'),
      cli('report', 'fixtures/compaction.jsonl', '--out', recallsOut),
      cli('simulate', 'fixtures/compaction.jsonl', '--json'),
    ]);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^wrote .*demo\.html \(\d+ KiB, 16 requests\)\n$/);
    expect(simulate.code).toBe(0);
    simulated = JSON.parse(simulate.stdout);
    demoUrl = pathToFileURL(out).href;
    expect(recallsReport.code, recallsReport.stderr).toBe(0);
    expect(recallsSimulate.code).toBe(0);
    recallsSimulated = JSON.parse(recallsSimulate.stdout);
    recallsUrl = pathToFileURL(recallsOut).href;
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a page and records every console error, page error and non-file request. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) problems.push(`network request: ${r.url()}`);
    });
    await page.goto(url);
    await page.waitForSelector('html[data-ready="true"]');
    return { page, problems };
  }

  it('opens with no console error and no network, and its totals are simulate --json totals', async () => {
    const { page, problems } = await open(demoUrl);
    const rows = await page.$$eval('#totals tr[data-strategy]', (trs) =>
      trs.map((tr) => ({ id: tr.getAttribute('data-strategy'), cost: Number(tr.getAttribute('data-cost')), text: tr.textContent })),
    );
    expect(rows.map((r) => r.id)).toEqual(simulated.totals.map((t) => t.id));
    for (const [i, t] of simulated.totals.entries()) {
      expect(rows[i]!.cost).toBe(t.cost);
      expect(rows[i]!.text).toContain(`$${t.cost.toFixed(4)}`);
    }
    // The first request's map is drawn on load.
    expect(await page.getAttribute('#blockmap', 'data-request')).toBe('0');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows simulate's recall columns: forced recalls per 100 and their cost, inside the total, on every row", async () => {
    const { page, problems } = await open(recallsUrl);
    const header = await page.$$eval('#totals tr:first-child th', (ths) => ths.map((th) => th.textContent));
    expect(header).toEqual(['strategy', 'label', 'cost', 'vs none', 'vs ideal', 'busts', 'rejected', 'recalls', 'recall cost', 'cachepoint saves']);
    const rows = await page.$$eval('#totals tr[data-strategy]', (trs) =>
      trs.map((tr) => ({ id: tr.getAttribute('data-strategy'), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })),
    );
    expect(rows.map((r) => r.id)).toEqual(recallsSimulated.totals.map((t) => t.id));
    expect(recallsSimulated.recalls.count).toBeGreaterThan(0);
    for (const [i, t] of recallsSimulated.totals.entries()) {
      const shown = rows[i]!.cells.slice(7, 9);
      const want = t.recalls
        ? [`${t.recalls.count} (${t.recalls.per100.toFixed(1)}/100)`, `$${t.recalls.cost.toFixed(4)}`]
        : t.id.startsWith('ideal')
          ? ['—', '—']
          : ['0', '$0.0000'];
      expect(shown, t.id).toEqual(want);
      expect(rows[i]!.cells[2], t.id).toBe(`$${t.cost.toFixed(4)}`);
    }
    const r = recallsSimulated.recalls;
    expect(await page.locator('#headline').textContent()).toContain(
      `${r.count} forced recalls in ${r.rounds} extra rounds (${r.per100.toFixed(1)} per 100 requests), $${r.cost.toFixed(4)}, included`,
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws the block map of the request you click: its blocks, its cache points, what changed', async () => {
    const { page, problems } = await open(demoUrl);
    const data = await page.$eval('#report-data', (el) => JSON.parse(el.textContent ?? ''));
    await page.click('#chart-tokens .req[data-i="7"]');
    await page.waitForSelector('#blockmap[data-request="7"]');
    const r = data.requests[7];
    const blocks = r.runs.reduce((n: number, run: [number, number]) => n + run[1], 0);
    expect(await page.locator('#blockmap table.blocks tr:not(.group)').count()).toBe(blocks + 1);
    expect(await page.locator('#blockmap h3').textContent()).toContain(`Request #7: turn ${r.turn}, round ${r.round}`);
    expect(await page.locator('#blockmap table.blocks td.pt .cp').count()).toBe(
      r.points.reduce((n: number, p: { labels: number[] }) => n + p.labels.length, 0),
    );
    expect(await page.locator('#blockmap .change').textContent()).toMatch(/since #6/);
    expect(await page.locator('#chart-tokens .req.selected').getAttribute('data-i')).toBe('7');
    // The cost chart and the keyboard reach the same map.
    await page.click('#chart-cost .req[data-i="3"]');
    await page.waitForSelector('#blockmap[data-request="3"]');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#blockmap[data-request="4"]');
    const shot = process.env.CACHEPOINT_REPORT_SCREENSHOT ?? join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws a recall round cachepoint inserted: its map says so, the peer did not send it, no script error', async () => {
    const html = await recallRoundReport();
    const file = join(dir, 'recall.html');
    writeFileSync(file, html.html);
    const { page, problems } = await open(pathToFileURL(file).href);
    const i = html.recallIndex;
    await page.click(`#chart-tokens .req[data-i="${i}"]`);
    await page.waitForSelector(`#blockmap[data-request="${i}"]`);
    expect(await page.locator('#blockmap li.recall').textContent()).toContain('recall round');
    expect(await page.locator('#blockmap .facts').textContent()).toContain('system_last: did not send it');
    // The requests around it still draw the peer's own request.
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector(`#blockmap[data-request="${i + 1}"]`);
    expect(await page.locator('#blockmap .facts').textContent()).toMatch(/system_last: read [\d,]+/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows hostile tool output as text: no script runs, the markup is visible verbatim', async () => {
    const { html } = await reportOf({ text: hostileTrace() }, '<script>window.__pwned=3</script>');
    const file = join(dir, 'hostile.html');
    writeFileSync(file, html);
    const { page, problems } = await open(pathToFileURL(file).href);
    await page.click('#chart-tokens .req[data-i="1"]');
    await page.waitForSelector('#blockmap[data-request="1"]');
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.title()).toBe('cachepoint report: <script>window.__pwned=3</script>');
    const previews = await page.locator('#blockmap td.preview').allTextContents();
    expect(previews.some((t) => t.includes('<script>document.title="pwned"'))).toBe(true);
    expect(previews.some((t) => t.includes('</style></script><!-- <img src=x'))).toBe(true);
    expect(await page.locator('#blockmap td.path', { hasText: 'toolu_</script>x' }).count()).toBeGreaterThan(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});

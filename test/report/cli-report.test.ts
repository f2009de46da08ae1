/** `cachepoint report` as a user runs it: the file it writes is renderReport's, and bad input is one line. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecallTally, StrategySummary } from '../../src/sim/summary.js';
import { cli } from '../cli/run.js';
import { GENERATED_AT, reportOf } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-report-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('cachepoint report', { timeout: 120_000 }, () => {
  it('writes the same bytes renderReport gives for the trace', async () => {
    const out = join(dir, 'demo.html');
    const [run, expected] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl', '--out', out, '--generated-at', GENERATED_AT),
      reportOf({ file: 'fixtures/demo.jsonl' }),
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(expected.html);
  });

  it('answers a missing --out with its usage (exit 2) and an unknown peer with one line (exit 1)', async () => {
    const [noOut, badPeer] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl'),
      cli('report', 'fixtures/demo.jsonl', '--out', join(dir, 'x.html'), '--peer', 'nope'),
    ]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/^cachepoint report: missing --out FILE\.html .*\n\nUsage: cachepoint report TRACE --out FILE\.html/);
    expect(badPeer.code).toBe(1);
    expect(badPeer.stderr).toMatch(/^cachepoint report: --peer: unknown strategy "nope"; known: .*ide4.*\n$/);
  });

  it('prices for another provider with --provider, and leaves no file behind when it refuses a peer after the work', async () => {
    const [openai, badPeer] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl', '--provider', 'openai', '--model', 'gpt-5.6-terra', '--out', join(dir, 'openai.html')),
      cli('report', 'fixtures/demo.jsonl', '--provider', 'openai', '--model', 'gpt-5.6-terra', '--peer', 'ide4x', '--out', join(dir, 'gone.html')),
    ]);
    expect(openai.stderr).toBe('');
    expect(openai.code).toBe(0);
    expect(readFileSync(join(dir, 'openai.html'), 'utf8')).toContain('· openai prices ·');
    expect(badPeer.code).toBe(1);
    expect(badPeer.stderr).toMatch(/^cachepoint report: --peer: unknown strategy "ide4x"; known: /);
    expect(existsSync(join(dir, 'gone.html'))).toBe(false);
  });

  // compaction.jsonl forces recalls under both policies (3 conservative, 2 economy): the columns have something to show.
  for (const policy of ['conservative', 'economy']) {
    it(`its totals table is simulate --json's, recall columns included (${policy})`, async () => {
      const out = join(dir, `recalls-${policy}.html`);
      const [run, simulate] = await Promise.all([
        cli('report', 'fixtures/compaction.jsonl', '--policy', policy, '--out', out),
        cli('simulate', 'fixtures/compaction.jsonl', '--policy', policy, '--json'),
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(simulate.code, simulate.stderr).toBe(0);
      const simulated = JSON.parse(simulate.stdout) as { totals: StrategySummary[]; recalls: RecallTally };
      const html = readFileSync(out, 'utf8');
      const rows = totalsRows(html);
      expect(rows.map((r) => r.id)).toEqual(simulated.totals.map((t) => t.id));
      expect(simulated.recalls.count).toBeGreaterThan(0);
      expect(html).toMatch(/<th[^>]*>recalls<\/th><th[^>]*>recall cost<\/th>/);
      for (const [i, t] of simulated.totals.entries()) {
        const row = rows[i]!;
        expect(row.attrs['data-cost'], t.id).toBe(String(t.cost));
        expect(row.cells[2], t.id).toBe(`$${t.cost.toFixed(4)}`);
        const [recalls, recallCost] = row.cells.slice(7, 9);
        if (t.recalls) {
          expect(row.attrs['data-recalls'], t.id).toBe(String(t.recalls.count));
          expect(row.attrs['data-recalls-per100'], t.id).toBe(String(t.recalls.per100));
          expect(row.attrs['data-recall-cost'], t.id).toBe(String(t.recalls.cost));
          expect(recalls, t.id).toBe(`${t.recalls.count} (${t.recalls.per100.toFixed(1)}/100)`);
          expect(recallCost, t.id).toBe(`$${t.recalls.cost.toFixed(4)}`);
        } else if (t.id.startsWith('ideal')) {
          expect([recalls, recallCost], t.id).toEqual(['—', '—']);
        } else {
          expect([recalls, recallCost], t.id).toEqual(['0', '$0.0000']);
        }
      }
      // cachepoint's row is the engine's tally, and the headline says the recalls are inside its cost.
      const cp = simulated.totals.find((t) => t.id === 'cachepoint')!;
      expect(cp.recalls).toEqual(simulated.recalls);
      const r = simulated.recalls;
      expect(html).toContain(
        `${r.count} forced recalls in ${r.rounds} extra rounds (${r.per100.toFixed(1)} per 100 requests), $${r.cost.toFixed(4)}, included`,
      );
    });
  }
});

/** The totals table's strategy rows: their data attributes and the text of their cells. */
function totalsRows(html: string): { id: string; attrs: Record<string, string>; cells: string[] }[] {
  const table = /<table id="totals">([\s\S]*?)<\/table>/.exec(html)![1]!;
  return [...table.matchAll(/<tr([^>]*)>([\s\S]*?)<\/tr>/g)]
    .filter((m) => m[1]!.includes('data-strategy='))
    .map((m) => {
      const attrs = Object.fromEntries([...m[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
      const cells = [...m[2]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!);
      return { id: attrs['data-strategy']!, attrs, cells };
    });
}

/** "What would cachepoint save on my agent" in two commands: import, then report (or simulate). */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cachepoint import', { timeout: 120_000 }, () => {
  it('imports a Claude Code transcript, then report and simulate read the result', async () => {
    const out = join(dir, 'session.jsonl');
    const imported = await cli('import', 'fixtures/import/claude-code.jsonl', '--out', out);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toBe(
      `wrote ${out} (main: 6 requests, 15 events, from claude-code)\nwrote ${join(dir, 'session.agent-a748733.jsonl')} (agent-a748733: 2 requests, 5 events, from claude-code)\n`,
    );
    expect(imported.stderr).toMatch(/^cachepoint import: warning: main: the transcript has no system prompt or tool definitions/);
    const html = join(dir, 'session.html');
    const [report, simulate] = await Promise.all([cli('report', out, '--out', html), cli('simulate', out, '--json')]);
    expect(report.code).toBe(0);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('cachepoint report: session.jsonl');
    // The usage Claude Code recorded is set against cachepoint's, with the estimate called out.
    expect(page).toMatch(
      /<p class="headline" id="recorded">As recorded in the log \(the usage the provider reported for 6 of 6 responses\): <b>\$0\.\d{4}<\/b>/,
    );
    expect(page).toContain('<b>The system prompt and tool definitions were estimated</b>');
    expect(simulate.code).toBe(0);
    expect(JSON.parse(simulate.stdout).requests).toHaveLength(6);
  });

  it('writes a single trace to stdout, refuses several without --out, and names the line of a malformed record', async () => {
    const one = join(dir, 'one.jsonl');
    writeFileSync(one, readFileSync('fixtures/import/messages-log.jsonl', 'utf8').split('\n')[0]!);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync('fixtures/import/messages-log.jsonl', 'utf8').split('\n')[0]}\n{"request": 1, "response": {}}\n`);
    const [single, several, malformed] = await Promise.all([
      cli('import', one),
      cli('import', 'fixtures/import/messages-log.jsonl'),
      cli('import', bad, '--from', 'messages-log'),
    ]);
    expect(single.code).toBe(0);
    expect(single.stdout.split('\n')[0]).toMatch(/^\{"type":"envelope","model":"claude-sonnet-4-6"/);
    expect(several.code).toBe(2);
    expect(several.stderr).toBe('cachepoint import: fixtures/import/messages-log.jsonl holds 2 traces (main, conversation-2): give --out FILE to write them\n');
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toBe(`cachepoint import: ${bad}:2: "request" must be a Messages API request body, got number 1\n`);
  });
});

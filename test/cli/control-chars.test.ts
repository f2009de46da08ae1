/**
 * Error and warning lines quote the input (Node's JSON error echoes the start of a broken line, a warning names the
 * trace's model). A log is untrusted text: a raw ESC or BEL in it would reach the user's terminal as a control
 * sequence (retitle the window, move the cursor, hide the line). They are written escaped (\u001b), visibly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliIn } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-ctrl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// C0 controls but tab and newline, and DEL: what a terminal may act on.
const controls = (s: string): string[] =>
  [...s].filter((c) => {
    const n = c.charCodeAt(0);
    return (n < 0x20 && c !== '\t' && c !== '\n') || n === 0x7f;
  });

describe('control characters from the input', () => {
  it('never reach stderr raw: a broken line, an unknown model, an import', async () => {
    const evil = '\u001b]0;pwned\u0007\u001b[2K';
    writeFileSync(join(dir, 'broken.jsonl'), `${evil}{"type":"envelope"}\n`);
    const env = { type: 'envelope', model: `claude-x${evil}`, instructions: ['You are an agent.'], tools: [] };
    const trace = [
      env,
      { type: 'user', at: '2026-03-02T09:00:00Z', content: 'hi' },
      { type: 'assistant', at: '2026-03-02T09:00:02Z', content: [{ type: 'text', text: 'ok' }] },
    ];
    writeFileSync(join(dir, 'model.jsonl'), trace.map((e) => JSON.stringify(e)).join('\n'));
    writeFileSync(join(dir, 'log.jsonl'), `${evil}\n`);
    const runs = await Promise.all([
      cliIn(dir, 'simulate', 'broken.jsonl'),
      cliIn(dir, 'render', 'model.jsonl'),
      cliIn(dir, 'import', 'log.jsonl', '--from', 'messages-log'),
    ]);
    for (const r of runs) {
      expect(r.stderr).not.toBe('');
      expect(controls(r.stderr)).toEqual([]);
      expect(r.stderr).toContain('\\u001b');
    }
    expect(runs.map((r) => r.code)).toEqual([1, 0, 1]);
  });
});

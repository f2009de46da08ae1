/**
 * A log still being written ends in half a record: Claude Code appends to the session's transcript while it runs,
 * and the README's "try it on your own logs" points `import` at that file. A last line with no newline after it
 * that is not valid JSON is left out with a warning; any other broken line is still an error naming it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatImported } from '../../src/import/common.js';
import { ImportError } from '../../src/import/errors.js';
import { importLog } from '../../src/import/formats.js';

const read = (f: string) => readFileSync(f, 'utf8');
const traces = (r: ReturnType<typeof importLog>) => r.traces.map((t) => [t.name, formatImported(t)]);

describe('importLog: a log cut short by its writer', () => {
  it.each(['fixtures/import/claude-code.jsonl', 'fixtures/import/messages-log.jsonl'])('%s: the cut last record is left out, with a warning', (file) => {
    const lines = read(file).split('\n').filter(Boolean);
    const last = lines.at(-1)!;
    const cut = `${lines.slice(0, -1).join('\n')}\n${last.slice(0, last.length - 40)}`;
    const whole = importLog(`${lines.slice(0, -1).join('\n')}\n`, file);
    const r = importLog(cut, file);
    expect(traces(r)).toEqual(traces(whole));
    expect(r.warnings).toContain(`line ${lines.length} is cut short (no newline at the end, not valid JSON: is the log still being written?): left out`);
  });

  it('a broken line that ends with a newline, or is not the last, is still an error naming it', () => {
    const lines = read('fixtures/import/messages-log.jsonl').split('\n').filter(Boolean);
    const broken = lines[1]!.slice(0, 100);
    for (const text of [`${lines[0]}\n${broken}\n`, `${lines[0]}\n${broken}\n${lines[2]}`]) {
      let err: unknown;
      try {
        importLog(text, 'proxy.jsonl');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ImportError);
      expect((err as Error).message).toMatch(/^proxy\.jsonl:2: not valid JSON/);
    }
  });
});

/**
 * messages-log lines a logging proxy records besides model responses: an API error (overloaded, rate limited)
 * and the retry after it, or a repeat of the same request (a retry after a response the client dropped, a
 * regenerate). Both used to break the import: an error line stopped it, and a repeat started a new trace that
 * copied the whole conversation again, so `--out` held only the requests before the repeat.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatImported } from '../../src/import/common.js';
import { importLog } from '../../src/import/formats.js';
import { compareTrace } from '../../src/replay/compare.js';
import { parseTrace } from '../../src/trace/reader.js';

const LINES = readFileSync('fixtures/import/messages-log.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Record<string, unknown> & { response: Record<string, unknown> });
const log = (lines: readonly unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n');
const requests = (text: string) => importLog(text, 'proxy.jsonl').traces.map((t) => [t.name, t.events.filter((e) => e.type === 'assistant').length]);

describe('importLog: messages-log errors and repeats', () => {
  const clean = importLog(log(LINES), 'proxy.jsonl');

  it.each([
    ['an error response', { ...LINES[1], response: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }],
    ['an error without a response', { request: LINES[1]!.request, timestamp: LINES[1]!.timestamp, error: { status: 529, type: 'overloaded_error' } }],
  ])('skips %s (no model response), with a warning naming its line; the retry after it continues the conversation', (_, failed) => {
    const r = importLog(log([LINES[0], failed, ...LINES.slice(1)]), 'proxy.jsonl');
    expect(r.traces.map((t) => formatImported(t))).toEqual(clean.traces.map((t) => formatImported(t)));
    expect(r.warnings).toContain('1 line was an API error, not a model response (line 2: overloaded_error): skipped');
  });

  it('a log of API errors only is one error naming the file, not an empty trace', () => {
    const failed = { request: LINES[0]!.request, error: { type: 'rate_limit_error' } };
    expect(() => importLog(log([failed, failed]), 'proxy.jsonl')).toThrow(
      'proxy.jsonl:1: no model response to import: every line is an API error (line 1: rate_limit_error, line 2: rate_limit_error)',
    );
  });

  it('a repeated request (a retry or regenerate) keeps the conversation in one trace: the later response replaces the dropped one', async () => {
    const dropped = {
      ...LINES[1],
      response: { ...LINES[1]!.response, id: 'msg_dropped', content: [{ type: 'text', text: 'cut short' }], stop_reason: 'max_tokens' },
    };
    const text = log([LINES[0], dropped, ...LINES.slice(1)]);
    expect(requests(text)).toEqual(requests(log(LINES))); // [main, 5], [conversation-2, 1]
    const r = importLog(text, 'proxy.jsonl');
    expect(r.traces.map((t) => formatImported(t))).toEqual(clean.traces.map((t) => formatImported(t)));
    expect(r.warnings).toContain('1 line repeated the request before it (a retry or regenerate: line 3 repeats line 2): the trace keeps the later response');
    const c = await compareTrace(() => parseTrace(formatImported(r.traces[0]!)));
    expect(c.engine).toHaveLength(5);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTrace } from '../../src/synthetic/index.js';
import { formatTrace, parseTrace, TraceParseError, type TraceEvent } from '../../src/trace/index.js';
import { readTrace } from '../../src/trace/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-trace-'));

async function collect(file: string): Promise<TraceEvent[]> {
  const out: TraceEvent[] = [];
  for await (const e of readTrace(file)) out.push(e);
  return out;
}

describe('readTrace', () => {
  it('streams a large generated trace to the same events as parseTrace', async () => {
    const text = formatTrace(generateTrace({ seed: 'stream', profile: 'research', requests: 200 }));
    expect(text.length).toBeGreaterThan(1_000_000);
    const file = join(dir, 'large.jsonl');
    writeFileSync(file, text);
    const streamed = await collect(file);
    expect(streamed).toEqual(parseTrace(text, file));
    expect(formatTrace(streamed)).toBe(text);
  });

  it('yields the events before a bad line, then throws naming the file and line', async () => {
    const events = generateTrace({ seed: 1, profile: 'coding', requests: 6 });
    const lines = formatTrace(events).split('\n');
    const assistant = lines.findIndex((l) => l.startsWith('{"type":"assistant"'));
    lines.splice(assistant + 1, 1); // drop the tool_results that answer it
    const file = join(dir, 'broken.jsonl');
    writeFileSync(file, lines.join('\n'));
    const seen: TraceEvent[] = [];
    let error: unknown;
    try {
      for await (const e of readTrace(file)) seen.push(e);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TraceParseError);
    const err = error as TraceParseError;
    expect(err.file).toBe(file);
    expect(err.line).toBe(assistant + 2);
    expect(err.rule).toBe('unanswered_tool_use');
    expect(err.message.startsWith(`${file}:${assistant + 2}: `)).toBe(true);
    expect(seen.length).toBe(assistant + 1);
  });

  it('rejects a missing file with the file system error', async () => {
    await expect(collect(join(dir, 'missing.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads CRLF files and reports physical line numbers including blank lines', async () => {
    const file = join(dir, 'crlf.jsonl');
    const env = JSON.stringify({ type: 'envelope', instructions: [], tools: [] });
    writeFileSync(file, [env, '', JSON.stringify({ type: 'user', at: '2026-03-02T09:00:00Z', content: 'hi' }), '', '{"type":"user"'].join('\r\n'));
    await expect(collect(file)).rejects.toMatchObject({ rule: 'invalid_json', line: 5 });
  });
});

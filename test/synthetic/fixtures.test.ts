import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { tiktokenCounter } from '../../src/tokens/counter.js';
import { FIXTURE_SPECS, generateTrace } from '../../src/synthetic/index.js';
import { formatTrace, type TraceEvent } from '../../src/trace/index.js';
import { readTrace } from '../../src/trace/reader.js';
import { quantile, shape } from './stats.js';

const DIR = 'fixtures';

async function load(file: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  for await (const e of readTrace(join(DIR, file))) events.push(e);
  return events;
}

describe('committed fixtures', () => {
  it.each(FIXTURE_SPECS.map((s) => [s.file, s] as const))('%s parses and is exactly what its recipe generates', async (file, spec) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const events = await load(file);
    expect(events.length).toBeGreaterThan(3);
    // Regenerating from the recorded seed/options gives the committed bytes.
    expect(formatTrace(generateTrace(spec.options))).toBe(text);
  });

  it('lists every .jsonl trace of fixtures/ in FIXTURE_SPECS, and the folder stays small', () => {
    const traces = readdirSync(DIR)
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
    for (const f of FIXTURE_SPECS.map((s) => s.file)) expect(traces).toContain(f);
    const bytes = readdirSync(DIR).reduce((n, f) => n + statSync(join(DIR, f)).size, 0);
    expect(bytes).toBeLessThan(12 * 1024 * 1024);
  });

  it('demo.jsonl: 3 turns of 3–9 rounds with thinking, parallel calls and a tail', async () => {
    const s = shape(await load('demo.jsonl'));
    expect(s.turns).toBe(3);
    expect(s.roundsPerTurn.every((r) => r >= 3 && r <= 9)).toBe(true);
    expect(s.thinking).toBeGreaterThan(0);
    expect(s.maxParallel).toBeGreaterThanOrEqual(2);
    expect(s.tails.length).toBe(s.requests);
  });

  it('long-idle.jsonl: 150–220 requests with gaps over 5 minutes and over 1 hour', async () => {
    const s = shape(await load('long-idle.jsonl'));
    expect(s.requests).toBeGreaterThanOrEqual(150);
    expect(s.requests).toBeLessThanOrEqual(220);
    expect(s.requestGaps.filter((g) => g > 5 * 60_000 && g < 60 * 60_000).length).toBeGreaterThan(0);
    expect(s.requestGaps.filter((g) => g > 60 * 60_000).length).toBeGreaterThan(0);
  });

  it('fanout.jsonl: a round with 20+ parallel tool calls', async () => {
    expect(shape(await load('fanout.jsonl')).maxParallel).toBeGreaterThanOrEqual(20);
  });

  it('research.jsonl: a result of several hundred thousand characters', async () => {
    expect(Math.max(...shape(await load('research.jsonl')).resultSizes)).toBeGreaterThanOrEqual(300_000);
  });

  it('volatile-tail.jsonl: a different tail before every request', async () => {
    const s = shape(await load('volatile-tail.jsonl'));
    expect(s.tails.length).toBe(s.requests);
    expect(new Set(s.tails).size).toBe(s.requests);
  });

  it('coding.jsonl: the same files read again and again, with edits and hides', async () => {
    const events = await load('coding.jsonl');
    const reads = new Map<string, number>();
    for (const e of events)
      if (e.type === 'assistant')
        for (const b of e.content)
          if (b.type === 'tool_use' && b.name === 'Read') reads.set(JSON.stringify(b.input), (reads.get(JSON.stringify(b.input)) ?? 0) + 1);
    expect(Math.max(...reads.values())).toBeGreaterThanOrEqual(3);
    expect(shape(events).hides).toBeGreaterThan(0);
  });

  it('compaction.jsonl: claude-opus-4-5 and more visible input than 90% of its window, in at most 4 MB', async () => {
    const events = await load('compaction.jsonl');
    const envelope = events[0]!;
    expect(envelope.type === 'envelope' && envelope.model).toBe('claude-opus-4-5');
    const window = resolveProfile('claude-opus-4-5').contextWindow;
    const counter = tiktokenCounter();
    let tokens = 0;
    for (const e of events) {
      if (e.type === 'envelope') tokens += counter.count(e.instructions.join('\n')) + counter.count(JSON.stringify(e.tools));
      if (e.type !== 'user' && e.type !== 'assistant' && e.type !== 'tool_results') continue;
      if (typeof e.content === 'string') tokens += counter.count(e.content);
      else
        for (const b of e.content) {
          const text =
            b.type === 'text'
              ? b.text
              : b.type === 'thinking'
                ? b.thinking
                : b.type === 'tool_use'
                  ? JSON.stringify(b.input)
                  : b.type === 'tool_result'
                    ? String(b.content)
                    : '';
          tokens += counter.count(text);
        }
    }
    expect(tokens).toBeGreaterThan(0.9 * window);
    expect(statSync(join(DIR, 'compaction.jsonl')).size).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('mixed-*.jsonl: realistic default sessions (median ~29 requests)', async () => {
    const mixed = FIXTURE_SPECS.filter((s) => s.file.startsWith('mixed-'));
    expect(mixed.length).toBeGreaterThanOrEqual(3);
    const requests: number[] = [];
    for (const s of mixed) requests.push(shape(await load(s.file)).requests);
    expect(quantile(requests, 0.5)).toBeGreaterThanOrEqual(20);
    expect(quantile(requests, 0.5)).toBeLessThanOrEqual(45);
  });
});

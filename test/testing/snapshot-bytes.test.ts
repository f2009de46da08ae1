/**
 * Issue 13, item 3: the README's claim "a snapshot diff is a byte diff". The
 * serializer used to print one line per block without its content, so two
 * system prompts differing only in a date gave identical snapshots. Every byte
 * change of the request must change the snapshot.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Rendered, StreamBlock } from '../../src/render/types.js';
import { replayAll } from '../../src/replay/replay.js';
import { formatRendered } from '../../src/testing/snapshot.js';
import { createTimeline, startTurn } from '../../src/timeline/edit.js';
import { parseTrace } from '../../src/trace/reader.js';

const demo = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Paths to every string leaf of a JSON value. */
function leaves(value: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (typeof value === 'string') out.push(at);
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...at, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, [...at, k], out);
  return out;
}

/** A deep copy of `value` with one character of the string at `path` replaced. */
function mutate(value: Json, path: (string | number)[], pos: number, char: string): Json {
  const copy = structuredClone(value);
  let parent = copy as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const key = path.at(-1)!;
  const s = parent[key] as string;
  const i = s.length === 0 ? 0 : pos % s.length;
  const replacement = s[i] === char ? (char === 'a' ? 'b' : 'a') : char;
  parent[key] = s.slice(0, i) + replacement + s.slice(i + 1);
  return copy;
}

describe('the snapshot serializer', async () => {
  const renders = (await replayAll(parseTrace(readFileSync(demo, 'utf8'), demo))).map((r) => r.rendered);

  it('tells two system prompts apart that differ only in a date', () => {
    const at = (date: string) =>
      render(startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: [`You are a coding agent. Today is ${date}.`] }), 'hi'), { now: 0 });
    expect(formatRendered(at('2026-03-02'))).not.toBe(formatRendered(at('2026-03-03')));
  });

  it('changes with every byte change of any block of any request (property)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), fc.nat(), fc.constantFrom('a', 'Z', '0', ' ', '\n', '"', '\\', 'é', '😀'), (r, b, leaf, pos, char) => {
        const rendered = renders[r % renders.length]!;
        const i = b % rendered.stream.length;
        const block = rendered.stream[i]!;
        const strings = leaves(block.param as unknown as Json);
        fc.pre(strings.length > 0);
        const param = mutate(block.param as unknown as Json, strings[leaf % strings.length]!, pos, char);
        const stream = rendered.stream.map((x, k) => (k === i ? ({ ...x, param } as unknown as StreamBlock) : x));
        const changed: Rendered = { ...rendered, stream };
        // A real byte change of the request…
        expect(JSON.stringify(toAnthropic(changed))).not.toBe(JSON.stringify(toAnthropic(rendered)));
        // …is a change of the snapshot.
        expect(formatRendered(changed)).not.toBe(formatRendered(rendered));
      }),
      { numRuns: 300 },
    );
  });

  it('changes with the model and with a marker’s TTL', () => {
    const r = renders[5]!;
    expect(formatRendered({ ...r, model: 'claude-opus-4-6' })).not.toBe(formatRendered(r));
    const points = r.cachePoints.map((p, k) => (k === 0 ? { ...p, ttl: p.ttl === '5m' ? ('1h' as const) : ('5m' as const) } : p));
    expect(formatRendered({ ...r, cachePoints: points })).not.toBe(formatRendered(r));
  });
});

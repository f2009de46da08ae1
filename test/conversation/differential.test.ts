/**
 * Differential: on every fixture, `prepare` over the plain message arrays a
 * loop would send produces byte-identical requests to the Session path (the
 * engine's own replay of the trace: the same timeline edits Session makes).
 * Hide events (the agent asked to hide a tool result) go to the next request's
 * `options.hide`, deferred when outside the editable zone, as the replay does.
 * The import samples (fixtures/import: a proxy log and a Claude Code transcript, through `cachepoint import`'s
 * importers) too: their blocks are shaped as a real loop's, and every request must pass the block rules the doors
 * check (a false refusal there would break a working loop).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replay, type ReplayedRequest } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { readFileSync } from 'node:fs';
import { formatImported } from '../../src/import/common.js';
import { importLog } from '../../src/import/formats.js';
import { throughPrepare } from '../helpers/plain-loop.js';

/** [name, trace text]: every fixture, then each trace of each import sample. */
const FIXTURES: [string, string][] = [
  ...readdirSync('fixtures')
    .filter((f) => f.endsWith('.jsonl'))
    .map((f): [string, string] => [f, readFileSync(`fixtures/${f}`, 'utf8')]),
  ...readdirSync('fixtures/import').flatMap((f) =>
    importLog(readFileSync(`fixtures/import/${f}`, 'utf8'), f).traces.map((t, i): [string, string] => [`import/${f}#${i}`, formatImported(t)]),
  ),
];

describe('prepare ≡ Session path, byte for byte', () => {
  for (const [file, text] of FIXTURES) {
    it(file, async () => {
      const events: TraceEvent[] = parseTrace(text, file);
      const expected: ReplayedRequest[] = [];
      for await (const r of replay(events, { extras: { max_tokens: 2048 } })) expected.push(r);

      const prepared = await throughPrepare(events, expected, { conversationId: file });
      prepared.forEach(({ params, plan }, k) => {
        expect(JSON.stringify(params), `${file} request ${k}`).toBe(JSON.stringify(expected[k]!.request));
        expect(plan.resync === undefined || plan.resync.reason.endsWith('_changed')).toBe(true);
      });
      const k = prepared.length;
      const hidden = prepared.reduce((n, { plan }) => n + (plan.hides?.length ?? 0), 0);
      expect(k).toBe(expected.length);
      expect(hidden).toBe(events.filter((e) => e.type === 'hide').length);
    });
  }
});

/**
 * Every committed fixture replayed on a model that binds thinking to its prefix, under both policies:
 * no request sends a thinking block whose prefix differs from the one it was produced under (the
 * fake server's check, keyed by the fixture's signatures), and thinking is left out only where it cannot be
 * avoided (an envelope change or a compaction).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/replay/replay.js';
import { simulateAll } from '../../src/sim/simulator.js';
import { ThinkingLedger } from '../../src/testing/fake-server-binding.js';
import { readTrace } from '../../src/trace/reader.js';
import type { TraceEvent } from '../../src/trace/types.js';

const FIXTURES = readdirSync('fixtures')
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

async function events(file: string): Promise<TraceEvent[]> {
  const out: TraceEvent[] = [];
  for await (const e of readTrace(`fixtures/${file}`)) out.push(e);
  return out;
}

describe('fixtures on a binding model (claude-sonnet-5-5)', () => {
  for (const policy of ['conservative', 'economy'] as const) {
    it.each(FIXTURES)(`%s (${policy}): no thinking block sent with a changed prefix`, async (file) => {
      const trace = await events(file);
      const responses = trace.filter((e) => e.type === 'assistant').map((e) => (e as { content: unknown }).content);
      const requests = await replayAll(trace, { model: 'claude-sonnet-5-5', policy, onWarning: () => {} });
      expect(requests).toHaveLength(responses.length);
      const ledger = new ThinkingLedger();
      const refused: string[] = [];
      requests.forEach((r, i) => {
        const at = ledger.check(r.request);
        if (at !== undefined) refused.push(`request ${i}: ${at}`);
        const content = responses[i];
        ledger.record(r.request, typeof content === 'string' ? [{ type: 'text', text: content }] : (content as unknown[]));
      });
      expect(refused).toEqual([]);
      // The simulator's check (it infers where each block was produced) agrees: nothing refused.
      const sim = simulateAll(requests.map((r) => ({ at: r.at, params: r.request })));
      expect(sim.filter((x) => x.rejected).map((x) => `request ${x.index}: ${x.rejected?.message}`)).toEqual([]);
      // Thinking is left out only where that cannot be avoided (an envelope change, a compaction): never for a
      // prune, a deferred hide, a tail or an edit of ours.
      const avoidable = requests.flatMap((r) =>
        r.rendered.decisions.filter(
          (d) => d.type === 'prune' && d.reason === 'binding' && d.binding?.cause !== 'envelope' && d.binding?.cause !== 'compaction',
        ),
      );
      expect(avoidable).toEqual([]);
    });
  }
});

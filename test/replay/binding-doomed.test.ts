/**
 * Economy sends the newest round's bulky payloads uncached when the next
 * request will prune them ("doomed", render/prune-rule.ts), so it does not pay
 * a write nobody reads. On a model that binds thinking the next request cannot
 * prune them when the response in between thinks: pruning would invalidate its
 * thinking, so the prune is deferred (preserved thinking) and the payload stays.
 * It was then paid twice: uncached, then written by the next request (the
 * judge's sweep, test/bench/judge.ts seed judge-53: a 187k-token result on
 * claude-mythos-5-1, economy 1.58× conservative).
 */
import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { parseTrace } from '../../src/trace/reader.js';

const at = (s: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString();
const jsonl = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');
const thinking = (text: string) => ({ type: 'thinking', thinking: text, signature: `sig-${text.length}-${text.slice(0, 12).replace(/\W/g, '')}` });
const LOG = Array.from({ length: 1500 }, (_, i) => `2026-03-02T09:${String(i % 60).padStart(2, '0')} job ${i}: posted entry ${i * 7} to ledger ${i % 13}`).join(
  '\n',
);

function trace(model: string): string {
  return jsonl(
    {
      type: 'envelope',
      model,
      instructions: ['You are a careful coding agent. '.repeat(200)],
      tools: [{ name: 'Bash', description: 'Runs a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
    },
    { type: 'user', at: at(1), content: 'Why does the reconciliation job fail?' },
    {
      type: 'assistant',
      at: at(3),
      content: [thinking('I should look at the job log first.'), { type: 'tool_use', id: 'toolu_log', name: 'Bash', input: { command: 'cat job.log' } }],
    },
    { type: 'tool_results', at: at(4), content: [{ type: 'tool_result', tool_use_id: 'toolu_log', content: LOG }] },
    {
      type: 'assistant',
      at: at(8),
      content: [
        thinking('The log shows the ledger ids; check the config.'),
        { type: 'tool_use', id: 'toolu_cfg', name: 'Bash', input: { command: 'cat config.toml' } },
      ],
    },
    { type: 'tool_results', at: at(9), content: [{ type: 'tool_result', tool_use_id: 'toolu_cfg', content: 'ledgers = 13' }] },
    {
      type: 'assistant',
      at: at(12),
      content: [thinking('And the schedule.'), { type: 'tool_use', id: 'toolu_cron', name: 'Bash', input: { command: 'crontab -l' } }],
    },
    { type: 'tool_results', at: at(13), content: [{ type: 'tool_result', tool_use_id: 'toolu_cron', content: '*/5 * * * * reconcile' }] },
    { type: 'assistant', at: at(16), content: [thinking('Enough.'), { type: 'text', text: 'The job runs every five minutes over 13 ledgers.' }] },
  );
}

describe('economy on a model that binds thinking, a bulky result answered by a thinking response', () => {
  it('writes the result where it is first sent (the next request cannot prune it), so economy is not dearer than conservative', async () => {
    const events = parseTrace(trace('claude-opus-5-5'), 'binding-doomed');
    const economy = await compareTrace(() => events, { policy: 'economy', onWarning: () => {} });
    const conservative = await compareTrace(() => events, { onWarning: () => {} });
    const cost = (c: typeof economy) => c.summaries.find((s) => s.id === 'cachepoint')!.cost;
    // The request that first sends the log: its tokens are written (④ at or past it), not sent uncached.
    const first = economy.engine.findIndex((r) => JSON.stringify(r.request).includes('job 1499'));
    expect(first).toBe(1);
    const logTokens = economy.engineResults[first]!.explain!.totalTokens - economy.engineResults[first - 1]!.explain!.totalTokens;
    expect(logTokens).toBeGreaterThan(10_000);
    expect(economy.engineResults[first]!.usage!.input_tokens).toBeLessThan(logTokens / 10);
    // The next request keeps it (the prune is deferred for the thinking after it) and reads it.
    expect(economy.engineResults[first + 1]!.usage!.cache_read_input_tokens).toBeGreaterThan(economy.engineResults[first]!.explain!.totalTokens - 200);
    expect(cost(economy)).toBeLessThanOrEqual(cost(conservative) * 1.001);
  });
});

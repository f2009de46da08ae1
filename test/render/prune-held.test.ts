/**
 * Models that bind thinking (render/bind.ts): the prune pass holds every payload before the last visible thinking
 * block (pruning it would invalidate that thinking) and reports only its path, so it does not weigh their re-use
 * (prune.ts). A payload after that block is weighed as on any model: a Read an Edit will need is kept, and the
 * plan says why.
 */
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { ENV, lines, T0 } from '../helpers/one-turn-trace.js';

const A = '/repo/src/ledger.ts';
const MODEL = 'claude-sonnet-5-5';

/** One turn: a first round that thinks, then tool rounds without thinking (so the Read follows the last thinking). */
function trace(): string {
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const calls: [string, Record<string, unknown>, string][] = [
    ['Grep', { pattern: 'total', path: '/repo/src' }, lines('grep0', 30)],
    ['Read', { file_path: A }, lines('ledger', 60)],
    ['Grep', { pattern: 'p1', path: '/repo/src' }, lines('grep1', 30)],
    ['Bash', { command: 'npm test' }, lines('FAIL test', 40)],
    ['Grep', { pattern: 'p2', path: '/repo/src' }, lines('grep2', 30)],
    ['Edit', { file_path: A, old_string: 'ledger line 3', new_string: 'ledger line three' }, 'The file was updated.'],
  ];
  const events: object[] = [
    { ...ENV, model: MODEL },
    { type: 'user', at: at(0), content: 'fix the total' },
  ];
  let t = 0;
  calls.forEach(([name, input, result], i) => {
    t += 3000;
    const thinking = i === 0 ? [{ type: 'thinking', thinking: 'Where is the total computed? '.repeat(20), signature: `sig-${'x'.repeat(40)}` }] : [];
    events.push({ type: 'assistant', at: at(t), content: [...thinking, { type: 'tool_use', id: `toolu_${i}`, name, input }] });
    t += 3000;
    events.push({ type: 'tool_results', at: at(t), content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }] });
  });
  events.push({ type: 'assistant', at: at(t + 3000), content: [{ type: 'text', text: 'Done.' }] });
  return events.map((e) => JSON.stringify(e)).join('\n');
}

describe('the prune pass on a model that binds thinking', () => {
  it('weighs the re-use of a payload after the last visible thinking: the Read the Edit needs is kept, with the figures', async () => {
    const reqs = await replayAll(parseTrace(trace()), { policy: 'economy', recalls: true });
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
    const path = 'turns/1/rounds/2/results/toolu_1';
    const kept = reqs.flatMap((r) => r.rendered.decisions).filter((d) => d.path === path && d.type === 'defer');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept[0]).toMatchObject({ type: 'defer', price: { reuse: { p: expect.any(Number) } } });
    expect(kept[0]!.type === 'defer' && kept[0]!.why).toMatch(/^re-use: p=0\.\d\d \(newest text of \/repo\/src\/ledger\.ts/);
    expect(reqs.at(-1)!.rendered.state.hidden[path]).toBeUndefined();
  });
});

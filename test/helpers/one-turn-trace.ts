/**
 * A one-turn trace for replay tests: one tool call per round, 6 s apart (the
 * cache stays warm all along), then a final answer.
 */

/** One call: [tool, input, result]. */
export type Call = [string, Record<string, unknown>, string];

export const ENV = {
  type: 'envelope',
  model: 'claude-sonnet-4-6',
  instructions: ['You are a coding agent. '.repeat(400)],
  tools: ['Read', 'Edit', 'Bash', 'Grep'].map((name) => ({ name, input_schema: { type: 'object' } })),
};

export const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);

/** `n` numbered lines of a file-like text about `seed`. */
export function lines(seed: string, n: number, verb = 'sums the'): string {
  return Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(4)}\t${seed} line ${i} ${verb} ${seed} entries`).join('\n');
}

/** The trace's JSONL text (`user`: the turn's user message). */
export function oneTurnTrace(calls: readonly Call[], user = 'fix the total'): string {
  const events: object[] = [ENV, { type: 'user', at: new Date(T0).toISOString(), content: user }];
  let t = T0;
  calls.forEach(([name, input, result], i) => {
    t += 3000;
    events.push({ type: 'assistant', at: new Date(t).toISOString(), content: [{ type: 'tool_use', id: `toolu_${i}`, name, input }] });
    t += 3000;
    events.push({ type: 'tool_results', at: new Date(t).toISOString(), content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }] });
  });
  events.push({ type: 'assistant', at: new Date(t + 3000).toISOString(), content: [{ type: 'text', text: 'Done.' }] });
  return events.map((e) => JSON.stringify(e)).join('\n');
}

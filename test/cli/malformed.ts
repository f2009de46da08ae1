/**
 * A small valid trace for the CLI fuzz test, and the mutations that make
 * malformed ones from it. Each event is a plain object so a mutation can
 * change one field; {@link lines} writes them as JSONL.
 */

const TOOL = (name: string) => ({ name, description: `${name} a file`, input_schema: { type: 'object', properties: { path: { type: 'string' } } } });

/** 11 lines, 4 requests: parallel calls, thinking, a tail, a hide by id and by path, a second turn. */
export function baseEvents(): Record<string, unknown>[] {
  return [
    { type: 'envelope', model: 'claude-sonnet-4-6', instructions: ['You are terse.', 'Edit files when asked.'], tools: [TOOL('Read'), TOOL('Edit')] },
    { type: 'user', at: '2026-03-02T10:00:00.000Z', content: 'Fix a.ts and b.ts' },
    {
      type: 'assistant',
      at: '2026-03-02T10:00:02.000Z',
      content: [
        { type: 'thinking', thinking: 'Read both.', signature: 'c2ln' },
        { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 'toolu_02', name: 'Read', input: { path: 'b.ts' } },
      ],
    },
    {
      type: 'tool_results',
      at: '2026-03-02T10:00:03.000Z',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const a = 1;\n'.repeat(40), duration_ms: 12 },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: [{ type: 'text', text: 'export const b = 2;' }] },
      ],
    },
    { type: 'tail', content: [{ type: 'text', text: 'budget: 90% left' }] },
    { type: 'hide', tool_use_id: 'toolu_02', note: 'b.ts read' },
    { type: 'assistant', at: '2026-03-02T10:00:05.000Z', content: [{ type: 'tool_use', id: 'toolu_03', name: 'Edit', input: { path: 'a.ts', text: 'x' } }] },
    { type: 'tool_results', at: '2026-03-02T10:00:06.000Z', content: [{ type: 'tool_result', tool_use_id: 'toolu_03', content: 'ok' }] },
    { type: 'hide', path: 'turns/1/rounds/1/results/toolu_01' },
    { type: 'assistant', at: '2026-03-02T10:00:08.000Z', content: [{ type: 'text', text: 'Done.' }] },
    { type: 'user', at: '2026-03-02T10:10:00.000Z', content: [{ type: 'text', text: 'Thanks' }] },
    { type: 'assistant', at: '2026-03-02T10:10:01.000Z', content: [{ type: 'text', text: 'You are welcome.' }] },
  ];
}

/** The JSONL text of events (one per line, final newline). */
export function lines(events: readonly unknown[]): string {
  return `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
}

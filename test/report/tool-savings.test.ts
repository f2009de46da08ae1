import { describe, expect, it } from 'vitest';
import { toolCacheSavings } from '../../src/report/tool-savings.js';
import { parseTrace } from '../../src/trace/reader.js';

const at = (s: number): string => new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString();
let n = 0;
const call = (name: string, input: object) => ({ type: 'tool_use', id: `toolu_${++n}`, name, input });
const result = (id: string, content: string, ms: number) => ({ type: 'tool_result', tool_use_id: id, content, duration_ms: ms });

/** One turn per call; each round calls one tool, the model then answers. */
function session(calls: { name: string; input: object; out: string; ms: number }[]): string {
  const lines: object[] = [{ type: 'envelope', instructions: ['x'], tools: [] }];
  let t = 0;
  for (const c of calls) {
    const use = call(c.name, c.input);
    lines.push({ type: 'user', at: at(t++), content: 'go' }, { type: 'assistant', at: at(t++), content: [use] });
    lines.push(
      { type: 'tool_results', at: at(t++), content: [result(use.id, c.out, c.ms)] },
      { type: 'assistant', at: at(t++), content: [{ type: 'text', text: 'ok' }] },
    );
  }
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

describe('toolCacheSavings', () => {
  it('replays a repeated read, forgets it after a write to the same file and after the TTL, and never caches writes', async () => {
    const read = { name: 'Read', input: { file_path: '/a.ts' }, out: 'A'.repeat(100), ms: 40 };
    const s = await toolCacheSavings(
      parseTrace(
        session([
          read, // turn 1: miss
          read, // turn 2: hit
          { name: 'Edit', input: { file_path: '/a.ts', old_string: 'A', new_string: 'B' }, out: 'ok', ms: 5 },
          read, // turn 4: miss (evicted)
          { name: 'Read', input: { file_path: '/b.ts' }, out: 'b', ms: 7 }, // other file
          read, // turn 6: hit (inserted turn 4; 6 − 4 < 3)
          { name: 'Grep', input: { pattern: 'x' }, out: 'g', ms: 9 },
          { name: 'Grep', input: { pattern: 'x' }, out: 'g', ms: 9 }, // hit
          { name: 'Bash', input: { command: 'make' }, out: 'built', ms: 900 }, // evicts every file entry
          { name: 'Grep', input: { pattern: 'x' }, out: 'g', ms: 9 }, // miss
          read, // turn 11: miss (Bash evicted it)
        ]),
      ),
      3,
    );
    expect(s).toMatchInlineSnapshot(`
      {
        "calls": 11,
        "hits": 3,
        "savedChars": 201,
        "savedMs": 89,
        "tools": [
          {
            "calls": 6,
            "hits": 2,
            "savedChars": 200,
            "savedMs": 80,
            "tool": "Read",
          },
          {
            "calls": 3,
            "hits": 1,
            "savedChars": 1,
            "savedMs": 9,
            "tool": "Grep",
          },
          {
            "calls": 1,
            "hits": 0,
            "savedChars": 0,
            "savedMs": 0,
            "tool": "Bash",
          },
          {
            "calls": 1,
            "hits": 0,
            "savedChars": 0,
            "savedMs": 0,
            "tool": "Edit",
          },
        ],
        "ttlTurns": 3,
      }
    `);
  });

  it('is undefined for a session without tool calls', async () => {
    expect(await toolCacheSavings(parseTrace(session([]).concat('\n', JSON.stringify({ type: 'user', at: at(1), content: 'hi' }))))).toBeUndefined();
  });
});

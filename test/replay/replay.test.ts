import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/replay/replay.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { parseTrace } from '../../src/trace/reader.js';

const ENV = {
  type: 'envelope',
  model: 'claude-sonnet-4-6',
  instructions: ['You are an agent. '.repeat(300)],
  tools: [{ name: 'Read', input_schema: { type: 'object' } }],
};
const at = (s: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString();
const jsonl = (...events: object[]) => events.map((e) => JSON.stringify(e)).join('\n');

describe('replay', () => {
  it('renders one valid request per assistant event, from the time of the event before it', async () => {
    const trace = jsonl(
      ENV,
      { type: 'user', at: at(1), content: 'read a and b' },
      {
        type: 'assistant',
        at: at(3),
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { p: 'a' } },
          { type: 'tool_use', id: 'toolu_b', name: 'Read', input: { p: 'b' } },
        ],
      },
      // Results arrive one event per finished call, with runtime fields the API does not take.
      { type: 'tool_results', at: at(4), content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'B', duration_ms: 12 }] },
      { type: 'tool_results', at: at(5), content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'A', duration_ms: 30 }] },
      {
        type: 'assistant',
        at: at(7),
        content: [
          { type: 'text', text: '' },
          { type: 'text', text: 'Both read.' },
        ],
      },
      // The user wrote twice before the model answered.
      { type: 'user', at: at(20), content: 'now c' },
      { type: 'user', at: at(21), content: 'and d' },
      { type: 'tail', content: [{ type: 'text', text: 'live view' }] },
      { type: 'assistant', at: at(23), content: [{ type: 'tool_use', id: 'toolu_c', name: 'Read', input: { p: 'c' } }] },
      // The session stopped before the result came back.
    );
    const requests = await replayAll(parseTrace(trace));
    expect(requests.map((r) => [r.index, r.atIso, r.turn, r.round])).toEqual([
      [0, at(1), 1, 1],
      [1, at(5), 1, 2],
      [2, at(21), 3, 1],
    ]);
    for (const r of requests) expect(validateRequest(r.request)).toBeNull();
    const json = JSON.stringify(requests[2]!.request);
    expect(json).not.toContain('duration_ms');
    expect(json).not.toContain('"text":""');
    const last = requests[2]!.request.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('now c');
    expect(JSON.stringify(last.content)).toContain('and d');
    expect(JSON.stringify(last.content).endsWith('{"type":"text","text":"live view"}]')).toBe(true);
  });

  it('replays a model without a profile with the default figures instead of failing', async () => {
    const trace = jsonl(
      { ...ENV, model: 'claude-next-9' },
      { type: 'user', at: at(1), content: 'hi' },
      { type: 'assistant', at: at(2), content: [{ type: 'text', text: 'hello' }] },
    );
    const [r] = await replayAll(parseTrace(trace));
    expect(r!.request.model).toBe('claude-next-9');
    expect(r!.rendered.profile.prices.input).toBe(3);
  });
});

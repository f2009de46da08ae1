import { describe, expect, it } from 'vitest';
import { generateTrace } from '../../src/synthetic/index.js';
import { formatTrace, requestToTrace, TraceParseError, type TraceEvent } from '../../src/trace/index.js';

/** The Messages API request that would carry a whole generated session (what a proxy logs last). */
function asRequest(events: readonly TraceEvent[]) {
  const env = events.find((e) => e.type === 'envelope');
  if (env?.type !== 'envelope') throw new Error('no envelope');
  const messages: { role: string; content: string | unknown[] }[] = [];
  const times: string[] = [];
  for (const e of events) {
    if (e.type === 'user' || e.type === 'tool_results') {
      messages.push({ role: 'user', content: typeof e.content === 'string' ? e.content : [...e.content] });
      times.push(e.atIso);
    }
    if (e.type === 'assistant') {
      messages.push({ role: 'assistant', content: [...e.content] });
      times.push(e.atIso);
    }
  }
  const request = {
    model: env.model ?? 'claude-sonnet-4-6',
    system: env.instructions.map((text) => ({ type: 'text' as const, text })),
    tools: env.tools,
    messages,
  };
  return { request, times, skills: env.skills ?? [] };
}

describe('requestToTrace', () => {
  it('rebuilds the user/assistant/tool_results sequence of a session, byte for byte', () => {
    const events = generateTrace({ seed: 21, profile: 'coding', requests: 20, tail: false, hides: false });
    const { request, times, skills } = asRequest(events);
    expect(formatTrace(requestToTrace(request, { times, skills }))).toBe(formatTrace(events));
  });

  it('removes cache_control markers and wraps string assistant content in a text block', () => {
    const events = requestToTrace({
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } } as never],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: 'hello' },
      ],
    });
    expect(events.map((e) => formatTrace([e]).trim())).toMatchInlineSnapshot(`
      [
        "{"type":"envelope","instructions":["be brief"],"tools":[]}",
        "{"type":"user","at":"2026-01-01T00:00:00.000Z","content":[{"type":"text","text":"hi"}]}",
        "{"type":"assistant","at":"2026-01-01T00:00:05.000Z","content":[{"type":"text","text":"hello"}]}",
      ]
    `);
  });

  it('reports a conversation that breaks the format with the line of the converted trace', () => {
    const bad = () =>
      requestToTrace(
        {
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
            { role: 'assistant', content: 'done' },
          ],
        },
        { file: 'last-request.json' },
      );
    expect(bad).toThrow(TraceParseError);
    expect(bad).toThrowErrorMatchingInlineSnapshot(
      `[TraceParseError: last-request.json:4: assistant event while tool_use ids are open: t1 (Read, line 3); expected a tool_results event answering them]`,
    );
  });

  it('needs one time per message', () => {
    expect(() => requestToTrace({ messages: [{ role: 'user', content: 'hi' }] }, { times: [] })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: times: needs one time per message: 1 messages, 0 times]`,
    );
  });
});

/**
 * Issue 13, item 2: empty or whitespace-only text inside a tool_result's
 * content used to pass through appendToolResults (and the trace reader, which
 * feeds it) into the request. The API refuses blank text blocks wherever they
 * are, so they are dropped as top-level blank text is; our validator treats
 * whitespace-only text as the API does.
 */
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { recall } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { replay } from '../../src/replay/replay.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import { TimelineError } from '../../src/errors.js';
import { parseTrace } from '../../src/trace/index.js';
import { newSession } from '../helpers/build.js';

function withResult(content: unknown) {
  let s = startTurn(newSession(), 'go');
  s = appendResponse(s, [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } }]);
  return appendToolResults(s, [{ type: 'tool_result', tool_use_id: 'toolu_1', content } as never]);
}

describe('blank text inside tool_result content', () => {
  it('drops empty and whitespace-only parts and keeps the rest', () => {
    const s = withResult([
      { type: 'text', text: '' },
      { type: 'text', text: ' \n\t' },
      { type: 'text', text: 'line 1' },
    ]);
    expect(recall(s, 'turns/1/rounds/1/results/toolu_1')).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [{ type: 'text', text: 'line 1' }],
    });
    expect(validateRequest(toAnthropic(render(s, { now: 0 }), { max_tokens: 10 }))).toBeNull();
  });

  it('sends a result with only blank parts without content, and the request is accepted', () => {
    const s = withResult([{ type: 'text', text: '   ' }]);
    expect(recall(s, 'turns/1/rounds/1/results/toolu_1')).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1' });
    expect(validateRequest(toAnthropic(render(s, { now: 0 }), { max_tokens: 10 }))).toBeNull();
  });

  it('does the same for a trace read from a file', async () => {
    const lines = [
      { type: 'envelope', instructions: ['You are a coding agent.'], tools: [{ name: 'Read', description: 'Reads', input_schema: { type: 'object' } }] },
      { type: 'user', at: '2026-03-02T09:00:01.000Z', content: 'fix it' },
      { type: 'assistant', at: '2026-03-02T09:00:02.000Z', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
      {
        type: 'tool_results',
        at: '2026-03-02T09:00:03.000Z',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
              { type: 'text', text: ' ' },
              { type: 'text', text: '' },
            ],
          },
        ],
      },
      { type: 'assistant', at: '2026-03-02T09:00:04.000Z', content: [{ type: 'text', text: 'Done.' }] },
    ];
    const events = parseTrace(lines.map((l) => JSON.stringify(l)).join('\n'), 'x.jsonl');
    let n = 0;
    for await (const r of replay(events, { extras: { max_tokens: 10 } })) {
      expect(validateRequest(r.request)).toBeNull();
      n++;
    }
    expect(n).toBe(2);
  });

  it('refuses a whitespace-only instruction at the edit, as it refuses an empty one', () => {
    expect(() => createTimeline({ model: 'claude-sonnet-4-6', instructions: [' \n'] })).toThrow(TimelineError);
    expect(() => createTimeline({ model: 'claude-sonnet-4-6', instructions: [' \n'] })).toThrow(/whitespace-only instruction/);
  });
});

describe('validateRequest', () => {
  const body = (content: unknown[]) => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] });
  it('refuses whitespace-only text, at the top level and inside a tool_result, in the API’s words', () => {
    expect(validateRequest(body([{ type: 'text', text: ' \n' }]))?.message).toBe(
      'messages.0.content.0.text: text content blocks must contain non-whitespace text',
    );
    const nested = {
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: '\t' }] }] },
      ],
    };
    expect(validateRequest(nested)?.message).toBe('messages.2.content.0.content.0.text: text content blocks must contain non-whitespace text');
  });
});

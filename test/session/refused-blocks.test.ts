/**
 * The Session door (and the pure edits under it) with blocks the API refuses: a user message, a tool result, the tail
 * or a recorded response carrying one is refused where it is added, with a TimelineError naming its path, and a
 * request whose last round has a tool_use without its result is refused before it is sent. The fake server refuses the
 * same requests by its own checks (the oracle: `validateRequest` of what would have gone out).
 */
import { describe, expect, it } from 'vitest';
import { TimelineError } from '../../src/errors.js';
import type { ContentBlockParam, Message, ToolResultBlockParam } from '../../src/providers/anthropic-types.js';
import { Session } from '../../src/session/session.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { appendResponse, createTimeline, startTurn } from '../../src/timeline/edit.js';

const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const } }];
const session = () => new Session({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'], tools, request: { max_tokens: 100 } });
const response = (content: unknown[]) => ({ content, stop_reason: 'tool_use' }) as unknown as Message;
const use = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { path: 'a.ts' } });
const result = (id: string, content: unknown = 'file a') => ({ type: 'tool_result', tool_use_id: id, content }) as ToolResultBlockParam;
const noSource = { type: 'image' } as unknown as ContentBlockParam;

function thrown(f: () => unknown): TimelineError {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(TimelineError);
  return err as TimelineError;
}

describe('Session: blocks the API refuses are refused where they are added', () => {
  it('an image without a source in the user message', () => {
    const err = thrown(() => session().startTurn([{ type: 'text', text: 'What is this?' }, noSource]));
    expect(err.message).toMatch(/^turns\/1\/user\/1: source: an image block needs a source object/);
  });

  it('an image without a url inside a tool result', () => {
    const s = session()
      .startTurn('Take a screenshot.')
      .recordResponse(response([use('toolu_1')]));
    const err = thrown(() => s.recordToolResults([result('toolu_1', [{ type: 'image', source: { type: 'url' } }])]));
    expect(err.message).toMatch(/^turns\/1\/rounds\/1\/results\/0\/content\/0: source\.url: expected a string/);
  });

  it('a thinking block without its signature in a recorded response', () => {
    const s = session().startTurn('Read a.ts.');
    const err = thrown(() => s.recordResponse(response([{ type: 'thinking', thinking: 'The file first.' }, use('toolu_1')])));
    expect(err.message).toMatch(/^turns\/1\/rounds\/1\/response\/0: signature: expected a string/);
  });

  it("another API's part in the tail", () => {
    const s = session().startTurn('Describe the screen.');
    const err = thrown(() => s.setTail([{ type: 'image_url', image_url: { url: 'https://example.com/s.png' } } as unknown as ContentBlockParam]));
    expect(err.message).toMatch(/"image_url" is not a Messages API content block/);
  });

  it('a request whose last round answered only some tool_use blocks', async () => {
    const s = session()
      .startTurn('Read both.')
      .recordResponse(response([use('toolu_1'), use('toolu_2')]))
      .recordToolResults([result('toolu_1')]);
    const err = await s.request().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimelineError);
    expect((err as Error).message).toBe(
      'turns/1/rounds/1: tool_use toolu_2 has no tool_result, and the API refuses a request without one: record the results first (recordToolResults, or runTools)',
    );
    // The oracle: the same conversation, answered in full, goes out; what would have gone out is refused.
    const params = await s.recordToolResults([result('toolu_2')]).request();
    expect(validateRequest(params)).toBeNull();
    const partial = { ...params, messages: [...params.messages.slice(0, -1), { role: 'user', content: [result('toolu_1')] }] };
    expect(validateRequest(partial)?.message).toMatch(/`tool_use` ids were found without `tool_result` blocks immediately after: toolu_2/);
  });

  it('the timeline edits under it still take them: replaying a trace (simulate, report) analyses what was sent', () => {
    let state = startTurn(createTimeline({ model: 'claude-sonnet-4-5', instructions: ['Be brief.'], tools }), [noSource, { type: 'text', text: 'hi' }]);
    state = appendResponse(state, [{ type: 'thinking', thinking: 'unsigned' } as never, use('toolu_1') as never]);
    expect(state.turns[0]!.rounds).toHaveLength(1);
  });

  it('lets the valid ones through: signed thinking, images of each source, an image result', async () => {
    const s = session()
      .startTurn([
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        { type: 'text', text: 'Compare them, then read a.ts.' },
      ])
      .recordResponse(response([{ type: 'thinking', thinking: 'The file first.', signature: 'sig' }, use('toolu_1')]))
      .recordToolResults([result('toolu_1', [{ type: 'image', source: { type: 'url', url: 'https://example.com/s.png' } }])]);
    expect(validateRequest(await s.request())).toBeNull();
  });
});

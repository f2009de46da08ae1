import { describe, expect, it } from 'vitest';
import { TraceParseError, parseTrace } from '../../src/trace/index.js';

const ENV = {
  type: 'envelope',
  instructions: ['You are a coding agent.'],
  tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' } }],
};
const at = (s: number) => `2026-03-02T09:00:${String(s).padStart(2, '0')}.000Z`;
const user = (s: number, content: unknown = 'fix the bug') => ({ type: 'user', at: at(s), content });
const text = (s: number, t = 'Done.') => ({ type: 'assistant', at: at(s), content: [{ type: 'text', text: t }] });
const use = (s: number, ...ids: string[]) => ({
  type: 'assistant',
  at: at(s),
  content: ids.map((id) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: `/repo/${id}.ts` } })),
});
const results = (s: number, ...ids: string[]) => ({
  type: 'tool_results',
  at: at(s),
  content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'ok', duration_ms: 12 })),
});

const jsonl = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

/** Parses and returns the error the trace must raise. */
function failure(...lines: unknown[]): TraceParseError {
  try {
    parseTrace(jsonl(...lines), 'fixtures/x.jsonl');
  } catch (e) {
    if (e instanceof TraceParseError) return e;
    throw e;
  }
  throw new Error('expected the trace to be rejected');
}

describe('parseTrace', () => {
  it('accepts a valid session and parses times to ms, keeping the ISO text', () => {
    const events = parseTrace(
      jsonl(
        ENV,
        user(1),
        use(2, 'toolu_1', 'toolu_2'),
        results(3, 'toolu_2', 'toolu_1'),
        { type: 'tail', content: [{ type: 'text', text: 'budget 10%' }] },
        text(4),
        '',
        user(5),
        text(6),
        '',
      ),
    );
    expect(events.map((e) => `${e.line}:${e.type}`)).toEqual([
      '1:envelope',
      '2:user',
      '3:assistant',
      '4:tool_results',
      '5:tail',
      '6:assistant',
      '8:user',
      '9:assistant',
    ]);
    const u = events[1];
    expect(u?.type === 'user' && [u.at, u.atIso]).toEqual([Date.parse(at(1)), at(1)]);
  });

  it('accepts CRLF line ends and a byte order mark', () => {
    expect(parseTrace(`\uFEFF${jsonl(ENV, user(1), text(2)).replaceAll('\n', '\r\n')}\r\n`)).toHaveLength(3);
  });

  it('accepts a user event after tool_results (an interrupted turn) and a repeated envelope', () => {
    expect(parseTrace(jsonl(ENV, user(1), use(2, 'a'), results(3, 'a'), ENV, user(4), text(5)))).toHaveLength(7);
  });

  it('accepts an offset time and orders times by the instant, not the text', () => {
    const events = parseTrace(jsonl(ENV, { ...user(0), at: '2026-03-02T10:00:30+01:00' }, text(31)));
    expect(events[1]?.type === 'user' && events[1].at).toBe(Date.parse(at(30)));
  });

  it('names the file, line and column of invalid JSON', () => {
    const e = failure(ENV, 'nope');
    expect([e.rule, e.line, e.column]).toEqual(['invalid_json', 2, undefined]);
    const e2 = failure(ENV, '{"type":"user" "at":1}');
    expect([e2.rule, e2.line, e2.column]).toEqual(['invalid_json', 2, 16]);
    expect(e2.message).toMatch(/^fixtures\/x\.jsonl:2:16: not valid JSON \(.*\); each line must be one JSON object$/);
  });

  it('rejects a line that is not an object', () => {
    expect(failure(ENV, '[1,2]').message).toMatchInlineSnapshot(`"fixtures/x.jsonl:2: each line must be a JSON object, got an array"`);
  });

  it('rejects an unknown or missing type', () => {
    expect(failure(ENV, user(1), { type: 'system', at: at(2) }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:3: unknown event: type string "system"; expected one of envelope, user, assistant, tool_results, tail, hide"`,
    );
    expect(failure(ENV, { at: at(2) }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:2: unknown event: no "type" field; expected one of envelope, user, assistant, tool_results, tail, hide"`,
    );
  });

  it('rejects an empty trace', () => {
    expect(failure('', '').message).toMatchInlineSnapshot(`"fixtures/x.jsonl:1: empty trace: expected an envelope event on the first line"`);
  });

  it('requires the first event to be an envelope', () => {
    const e = failure('', user(1));
    expect([e.rule, e.line]).toEqual(['first_not_envelope', 2]);
    expect(e.message).toMatchInlineSnapshot(`"fixtures/x.jsonl:2: the first event must be an envelope, got "user""`);
  });

  it('requires the first event after the envelope to be a user event', () => {
    expect(failure(ENV, { type: 'tail', content: [{ type: 'text', text: 'x' }] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:2: the first event after the envelope must be a user event, got tail"`,
    );
    expect(failure(ENV, text(1)).rule).toBe('expected_user');
  });

  it('checks required fields and their types', () => {
    expect(failure({ type: 'envelope', tools: [] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:1: envelope.instructions must be an array of strings, got nothing (the field is missing)"`,
    );
    expect(failure({ ...ENV, instructions: ['a', 3] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:1: envelope.instructions[1] must be a string, got number 3"`,
    );
    expect(failure({ ...ENV, tools: [{ name: 'Read' }] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:1: envelope.tools[0].input_schema must be a JSON schema object, got nothing (the field is missing)"`,
    );
    expect(failure({ ...ENV, skills: [{ name: 'pdf' }] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:1: envelope.skills[0].description must be a string, got nothing (the field is missing)"`,
    );
    expect(failure(ENV, user(1, [])).message).toMatchInlineSnapshot(`"fixtures/x.jsonl:2: user.content must not be empty"`);
    expect(failure(ENV, user(1, [{ type: 'tool_result', tool_use_id: 'a' }])).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:2: user.content[0] is a tool_result; tool results belong in a tool_results event"`,
    );
    expect(failure(ENV, user(1), { type: 'assistant', at: at(2), content: [{ type: 'thinking', thinking: 'hmm' }] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:3: assistant.content[0].signature must be a string, got nothing (the field is missing)"`,
    );
    expect(failure(ENV, user(1), { type: 'assistant', at: at(2), content: [{ type: 'image' }] }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:3: assistant.content[0].type is "image"; an assistant event holds only text, thinking, redacted_thinking, tool_use blocks"`,
    );
    expect(
      failure(ENV, user(1), { type: 'assistant', at: at(2), content: [{ type: 'tool_use', id: 'a', name: 'Read', input: 'x' }] }).message,
    ).toMatchInlineSnapshot(`"fixtures/x.jsonl:3: assistant.content[0].input must be an object (the tool's arguments), got string "x""`);
    expect(
      failure(ENV, user(1), use(2, 'a'), { ...results(3, 'a'), content: [{ type: 'tool_result', tool_use_id: 'a', duration_ms: -1 }] }).message,
    ).toMatchInlineSnapshot(`"fixtures/x.jsonl:4: tool_results.content[0].duration_ms must be a non-negative number of milliseconds, got number -1"`);
    expect(
      failure(ENV, user(1), use(2, 'a'), {
        ...results(3, 'a'),
        content: [
          { type: 'text', text: 'x' },
          { type: 'tool_result', tool_use_id: 'a' },
        ],
      }).message,
    ).toMatchInlineSnapshot(`"fixtures/x.jsonl:4: tool_results.content[0] is a text block; a tool_results event starts with tool_result blocks"`);
    expect(
      failure(ENV, user(1), use(2, 'a', 'b'), {
        ...results(3),
        content: [
          { type: 'tool_result', tool_use_id: 'a' },
          { type: 'text', text: 'x' },
          { type: 'tool_result', tool_use_id: 'b' },
        ],
      }).message,
    ).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:4: tool_results.content[2] is a tool_result after the text block at content[1]; tool_result blocks come first, runtime text after them"`,
    );
  });

  it('rejects a missing or invalid time', () => {
    expect(failure(ENV, { type: 'user', content: 'hi' }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:2: user.at must be an ISO-8601 time string like "2026-03-02T09:14:07.120Z", got nothing (the field is missing)"`,
    );
    expect(failure(ENV, { ...user(1), at: '2026-02-30T10:00:00Z' }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:2: user.at "2026-02-30T10:00:00Z" is not a valid ISO-8601 date-time with a zone (expected e.g. "2026-03-02T09:14:07.120Z")"`,
    );
    expect(failure(ENV, { ...user(1), at: '2026-03-02T10:00:00' }).rule).toBe('invalid_time');
    expect(failure(ENV, { ...user(1), at: 1772445600000 }).rule).toBe('invalid_time');
  });

  it('rejects a time that goes backwards', () => {
    const e = failure(ENV, user(5), use(6, 'a'), results(4, 'a'));
    expect([e.rule, e.line]).toEqual(['time_went_backwards', 4]);
    expect(e.message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:4: tool_results.at 2026-03-02T09:00:04.000Z is earlier than 2026-03-02T09:00:06.000Z on line 3; times must never go backwards"`,
    );
  });

  it('rejects a tool_result for an unknown id', () => {
    const e = failure(ENV, user(1), use(2, 'toolu_1', 'toolu_2'), { ...results(3), content: [{ type: 'tool_result', tool_use_id: 'toolu_9' }] });
    expect([e.rule, e.line]).toEqual(['unknown_tool_use', 4]);
    expect(e.message).toMatchInlineSnapshot(`"fixtures/x.jsonl:4: tool_results answers unknown tool_use id "toolu_9" (open ids: toolu_1, toolu_2)"`);
  });

  it('rejects a duplicate tool_result, in the same event or a later round', () => {
    expect(failure(ENV, user(1), use(2, 'a', 'b'), results(3, 'a', 'a', 'b')).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:4: tool_results answers tool_use id "a" again (already answered earlier on this line); each tool_use gets exactly one tool_result"`,
    );
    const e = failure(ENV, user(1), use(2, 'a'), results(3, 'a'), use(4, 'b'), results(5, 'b', 'a'));
    expect([e.rule, e.line]).toEqual(['duplicate_tool_result', 6]);
    expect(e.message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:6: tool_results answers tool_use id "a" again (already answered on line 4); each tool_use gets exactly one tool_result"`,
    );
  });

  it('accepts results spread over several tool_results events, and still requires all before the next assistant', () => {
    expect(parseTrace(jsonl(ENV, user(1), use(2, 'a', 'b'), results(3, 'b'), results(4, 'a'), text(5)))).toHaveLength(6);
    const e = failure(ENV, user(1), use(2, 'a', 'b'), results(3, 'b'), text(4));
    expect([e.rule, e.line]).toEqual(['unanswered_tool_use', 5]);
  });

  it('rejects an assistant event while tool_use ids are open', () => {
    const e = failure(ENV, user(1), use(2, 'a'), text(3));
    expect([e.rule, e.line]).toEqual(['unanswered_tool_use', 4]);
    expect(e.message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:4: assistant event while tool_use ids are open: a (Read, line 3); expected a tool_results event answering them"`,
    );
  });

  it('rejects a user event while tool_use ids are open', () => {
    expect(failure(ENV, user(1), use(2, 'a'), { type: 'tail', content: [{ type: 'text', text: 'x' }] }, user(3)).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:5: user event while tool_use ids are open: a (Read, line 3); a tool_results event must answer them first"`,
    );
  });

  it('accepts a trace that ends on tool calls whose results never came (no request follows them)', () => {
    expect(parseTrace(jsonl(ENV, user(1), use(2, 'a')))).toHaveLength(3);
  });

  it('requires a user event after an assistant without tool_use, ignoring tail, hide and envelope', () => {
    const e = failure(ENV, user(1), text(2), { type: 'tail', content: [{ type: 'text', text: 'x' }] }, ENV, text(3));
    expect([e.rule, e.line]).toEqual(['expected_user', 6]);
    expect(e.message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:6: assistant event after the turn ended (the assistant on line 3 had no tool_use); expected a user event"`,
    );
    expect(failure(ENV, user(1), text(2), results(3, 'a')).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:4: tool_results event but no tool_use is open (the assistant on line 3 had no tool_use)"`,
    );
  });

  it('rejects tool_results where no tool_use is open', () => {
    expect(failure(ENV, user(1), results(2, 'a')).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:3: tool_results event but no tool_use is open (no assistant event since the user event on line 2)"`,
    );
  });

  it('accepts two user events with no response between (the user wrote twice)', () => {
    expect(parseTrace(jsonl(ENV, user(1), user(2), text(3)))).toHaveLength(4);
  });

  it('rejects a reused tool_use id', () => {
    expect(failure(ENV, user(1), use(2, 'a'), results(3, 'a'), use(4, 'a')).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:5: tool_use id "a" was already used on line 3; ids must be unique in a session"`,
    );
    expect(failure(ENV, user(1), use(2, 'a', 'a')).rule).toBe('duplicate_tool_use');
  });

  it('requires hide to name a tool_use_id or a path, and the id to have a result', () => {
    expect(failure(ENV, user(1), { type: 'hide', note: 'x' }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:3: hide needs "tool_use_id" (the tool whose result to hide) or "path" (the logical path of a block)"`,
    );
    expect(failure(ENV, user(1), { type: 'hide', tool_use_id: 'nope' }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:3: hide names tool_use id "nope", which no earlier assistant event used"`,
    );
    expect(failure(ENV, user(1), use(2, 'a'), { type: 'hide', tool_use_id: 'a' }).message).toMatchInlineSnapshot(
      `"fixtures/x.jsonl:4: hide names tool_use id "a" (line 3), whose result has not arrived yet"`,
    );
    expect(
      parseTrace(
        jsonl(ENV, user(1), use(2, 'a'), results(3, 'a'), { type: 'hide', tool_use_id: 'a' }, { type: 'hide', path: 'turns/1/rounds/1/results/a' }, text(4)),
      ),
    ).toHaveLength(7);
  });

  it('uses "line N" without a file name', () => {
    expect(() => parseTrace(jsonl(user(1)))).toThrowErrorMatchingInlineSnapshot(`[TraceParseError: line 1: the first event must be an envelope, got "user"]`);
  });
});

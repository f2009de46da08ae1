/**
 * The importers on small committed samples written for these tests
 * (fixtures/import/: a logging proxy's request/response pairs and a Claude
 * Code transcript, both synthetic), and on malformed lines.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatImported } from '../../src/import/common.js';
import { importLog } from '../../src/import/formats.js';
import { importError } from './import-error.js';
import type { ImportedTrace } from '../../src/import/types.js';
import { compareTrace } from '../../src/replay/compare.js';
import { parseTrace } from '../../src/trace/reader.js';

const MESSAGES_LOG = 'fixtures/import/messages-log.jsonl';
const CLAUDE_CODE = 'fixtures/import/claude-code.jsonl';
const read = (f: string): string => readFileSync(f, 'utf8');

/** One line per event: type, time and a short account of its blocks. */
function outline(t: ImportedTrace): string[] {
  return t.events.map((e) => {
    const content = Array.isArray(e.content)
      ? (e.content as { type: string; name?: string; tool_use_id?: string }[])
          .map((b) => (b.type === 'tool_use' ? `tool_use:${b.name}` : b.type === 'tool_result' ? `tool_result:${b.tool_use_id}` : b.type))
          .join(' ')
      : typeof e.content === 'string'
        ? 'string'
        : '';
    return `${e.type}${e.at ? ` ${String(e.at).slice(11, 19)}` : ''}${content ? ` [${content}]` : ''}${e.usage ? ' +usage' : ''}`;
  });
}

describe('importLog: messages-log', () => {
  it('splits interleaved conversations, appends only new messages, keeps the logged times and usage, drops cache markers', async () => {
    const r = importLog(read(MESSAGES_LOG), MESSAGES_LOG);
    expect(r.format).toBe('messages-log');
    expect(r.traces.map((t) => t.name)).toEqual(['main', 'conversation-2']);
    expect(outline(r.traces[0]!)).toMatchInlineSnapshot(`
      [
        "envelope",
        "user 09:00:00 [string]",
        "assistant 09:00:04 [text tool_use:read_file] +usage",
        "tool_results 09:00:06 [tool_result:toolu_A1]",
        "assistant 09:00:09 [tool_use:run_tests] +usage",
        "tool_results 09:00:11 [tool_result:toolu_A2]",
        "assistant 09:00:15 [text tool_use:read_file] +usage",
        "tool_results 09:00:17 [tool_result:toolu_A3]",
        "assistant 09:00:20 [text] +usage",
        "user 09:07:20 [string]",
        "assistant 09:07:26 [text] +usage",
      ]
    `);
    expect(r.traces[0]!.sources).toEqual([1, 1, 1, 2, 2, 4, 4, 5, 5, 6, 6]);
    const envelope = r.traces[0]!.events[0]!;
    expect(envelope.model).toBe('claude-sonnet-4-6');
    expect(envelope.estimated).toBeUndefined();
    expect(formatImported(r.traces[0]!)).not.toContain('cache_control');
    expect(r.warnings).toEqual(['the log holds 2 conversations (requests that do not extend an earlier one start a new trace)']);
    // The result is a trace the engine replays and prices: one request per logged call.
    const events = parseTrace(formatImported(r.traces[0]!));
    const c = await compareTrace(() => events);
    expect(c.engine).toHaveLength(5);
    expect(c.engine.map((q) => q.atIso.slice(11, 19))).toEqual(['09:00:00', '09:00:06', '09:00:11', '09:00:17', '09:07:20']);
  });

  it('spaces requests 5 s apart when the log has no times, and says so', () => {
    const text = read(MESSAGES_LOG)
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const { timestamp: _t, response_timestamp: _r, ...rest } = JSON.parse(l);
        return JSON.stringify(rest);
      })
      .join('\n');
    const r = importLog(text, 'untimed.jsonl');
    expect(r.traces[0]!.events.filter((e) => e.type === 'assistant').map((e) => String(e.at).slice(11, 19))).toEqual([
      '00:00:00',
      '00:00:05',
      '00:00:15',
      '00:00:20',
      '00:00:25',
    ]);
    expect(r.warnings).toContain('6 of 6 lines had no time stamp: those requests are spaced 5 s apart (cache expiry is then not measured)');
  });

  it('names the file and line of what it cannot read', () => {
    const good = read(MESSAGES_LOG).split('\n')[0]!;
    expect(importError(() => importLog(`${good}\n{"request": {"messages": []\n`, 'proxy.jsonl')).message).toMatch(
      /^proxy\.jsonl:2: not valid JSON at column \d+ \(.*\); each line must be one JSON object$/,
    );
    expect(importError(() => importLog(`${good}\n\n{"request": {"messages": [{"role":"user","content":"hi"}]}}`, 'proxy.jsonl')).message).toBe(
      'proxy.jsonl:3: "response" must be the Messages API response, got nothing (the field is missing)',
    );
    expect(importError(() => importLog(`{"request": {"messages": [{"role":"tool","content":"x"}]}, "response": {"content": []}}`, 'proxy.jsonl')).message).toBe(
      'proxy.jsonl:1: request.messages[0] must be {"role": "user"|"assistant", "content": string or blocks}, got an object',
    );
    expect(
      importError(() => importLog(`{"request": {"messages": [{"role":"user","content":"hi"}]}, "response": {"content": "hello"}}`, 'proxy.jsonl')).message,
    ).toBe('proxy.jsonl:1: "response.content" must be an array of content blocks, got string "hello"');
    // A conversation the trace format cannot express is reported at the input line it came from.
    const startsWithAssistant = `{"request": {"messages": [{"role":"assistant","content":"I start"},{"role":"user","content":"ok"}]}, "response": {"content": [{"type":"text","text":"x"}]}}`;
    expect(importError(() => importLog(`${good}\n${startsWithAssistant}`, 'proxy.jsonl')).message).toBe(
      'proxy.jsonl:2: the converted conversation-2 trace breaks a rule of the trace format: the first event after the envelope must be a user event, got assistant',
    );
  });
});

describe('importLog: claude-code', () => {
  it('rebuilds responses from per-block records, keeps tool durations and injected text, splits the subagent off', () => {
    const r = importLog(read(CLAUDE_CODE), CLAUDE_CODE);
    expect(r.format).toBe('claude-code');
    expect(r.traces.map((t) => t.name)).toEqual(['main', 'agent-a748733']);
    expect(outline(r.traces[0]!)).toMatchInlineSnapshot(`
      [
        "envelope",
        "user 09:00:00 [text]",
        "user 09:00:01 [text]",
        "assistant 09:00:05 [thinking text tool_use:Read] +usage",
        "tool_results 09:00:05 [tool_result:toolu_C1]",
        "assistant 09:00:08 [tool_use:Grep tool_use:Bash] +usage",
        "tool_results 09:00:09 [tool_result:toolu_C2]",
        "tool_results 09:00:14 [tool_result:toolu_C3 text]",
        "assistant 09:00:17 [text tool_use:Task] +usage",
        "tool_results 09:00:24 [tool_result:toolu_C4]",
        "assistant 09:00:31 [text] +usage",
        "user 09:08:31 [text]",
        "assistant 09:08:35 [tool_use:Edit] +usage",
        "tool_results 09:08:36 [tool_result:toolu_C5]",
        "assistant 09:08:39 [text] +usage",
      ]
    `);
    expect(outline(r.traces[1]!)).toEqual([
      'envelope',
      'user 09:00:18 [text]',
      'assistant 09:00:20 [tool_use:Grep] +usage',
      'tool_results 09:00:21 [tool_result:toolu_S1]',
      'assistant 09:00:23 [text] +usage',
    ]);
    const main = r.traces[0]!;
    const results = main.events.filter((e) => e.type === 'tool_results').flatMap((e) => e.content as { tool_use_id?: string; duration_ms?: number }[]);
    expect(Object.fromEntries(results.filter((b) => b.tool_use_id).map((b) => [b.tool_use_id, b.duration_ms ?? null]))).toEqual({
      toolu_C1: 35,
      toolu_C2: 120,
      toolu_C3: null,
      toolu_C4: 6100,
      toolu_C5: null,
    });
  });

  it('imports a subagent file of its own (newer versions keep subagents in <session>/subagents/agent-<id>.jsonl)', () => {
    const agentOnly = read(CLAUDE_CODE)
      .split('\n')
      .filter((l) => l.includes('"isSidechain": true'))
      .join('\n');
    const r = importLog(agentOnly, 'agent-a748733.jsonl');
    expect(r.traces.map((t) => [t.name, t.events.filter((e) => e.type === 'assistant').length])).toEqual([['agent-a748733', 2]]);
  });

  it('fills the missing system prompt and tool definitions with a flagged estimate sized from the first reported usage', () => {
    const r = importLog(read(CLAUDE_CODE), CLAUDE_CODE);
    const env = r.traces[0]!.events[0]! as unknown as {
      model: string;
      instructions: string[];
      tools: { name: string }[];
      estimated: { tokens: number; instructions: boolean; tools: boolean };
    };
    expect(env.model).toBe('claude-opus-4-6');
    expect(env.tools.map((t) => t.name)).toEqual(['Read', 'Grep', 'Bash', 'Task', 'Edit']);
    expect(env.instructions[0]).toMatch(/^\[system prompt \(estimated\): placeholder of about \d+ tokens; the log does not record the real text\]/);
    expect(env.estimated).toMatchObject({ instructions: true, tools: true });
    // 16,024 reported prompt tokens on the first response, minus the two user messages before it.
    expect(env.estimated.tokens).toBeGreaterThan(15_950);
    expect(env.estimated.tokens).toBeLessThan(16_024);
    expect(r.warnings).toMatchInlineSnapshot(`
      [
        "main: the transcript has no system prompt or tool definitions: the envelope is a flagged estimate of 16005 tokens (the first response's reported prompt (16024 tokens) minus the 19 tokens of the messages before it (line 4)), 5 placeholder tool(s)",
        "agent-a748733: the transcript has no system prompt or tool definitions: the envelope is a flagged estimate of 9043 tokens (the first response's reported prompt (9053 tokens) minus the 10 tokens of the messages before it (line 17)), 1 placeholder tool(s)",
        "skipped records that carry nothing sent to the model: file-history-snapshot (1), progress (1), synthetic assistant (API error) (1), system (1), summary (1)",
      ]
    `);
  });

  it('answers a call interrupted by a new prompt with a flagged error result, and starts a new trace after a compaction', () => {
    const rec = (type: string, s: number, content: unknown, extra: object = {}) =>
      JSON.stringify({
        type,
        sessionId: 's',
        parentUuid: null,
        timestamp: new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString(),
        message: { role: type, content, ...(type === 'assistant' ? { id: `m${s}`, model: 'claude-sonnet-4-6' } : {}) },
        ...extra,
      });
    const text = [
      rec('user', 0, 'run it'),
      rec('assistant', 1, [{ type: 'tool_use', id: 'toolu_x', name: 'Bash', input: { command: 'sleep 100' } }]),
      rec('user', 5, [{ type: 'text', text: '[Request interrupted by user]' }]),
      rec('user', 6, 'never mind, summarize'),
      rec('assistant', 7, [{ type: 'text', text: 'ok' }]),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', sessionId: 's', timestamp: '2026-03-02T09:00:08.000Z' }),
      rec('user', 9, 'This session is being continued from a previous conversation. Summary: …', { isCompactSummary: true }),
      rec('assistant', 10, [{ type: 'text', text: 'continuing' }]),
    ].join('\n');
    const r = importLog(text, 'cc.jsonl');
    expect(r.traces.map((t) => t.name)).toEqual(['main', 'main-2']);
    expect(outline(r.traces[0]!)).toEqual([
      'envelope',
      'user 09:00:00 [text]',
      'assistant 09:00:01 [tool_use:Bash]',
      'tool_results 09:00:05 [tool_result:toolu_x]',
      'user 09:00:05 [text]',
      'user 09:00:06 [text]',
      'assistant 09:00:07 [text]',
    ]);
    expect(r.traces[0]!.events[3]).toMatchObject({
      imported: { synthesized: true },
      content: [{ is_error: true, content: '[no result recorded: the call was interrupted]' }],
    });
    expect(r.warnings).toContain('main: 1 tool call(s) had no recorded result; answered with a flagged error result');
    expect(r.warnings).toContain('the session was compacted 1 time(s): each context after a compaction is its own trace (main-2, …)');
    expect(r.warnings).toContain(
      `main: the transcript has no system prompt or tool definitions: the envelope is a flagged estimate of 15000 tokens (no reported usage before the first response: the default 15000 tokens), 1 placeholder tool(s)`,
    );
  });

  it('names the file and line of a record it cannot read', () => {
    const lines = read(CLAUDE_CODE).split('\n');
    const broken = (k: number, edit: (o: Record<string, unknown>) => void): string => {
      const copy = [...lines];
      const o = JSON.parse(copy[k - 1]!);
      edit(o);
      copy[k - 1] = JSON.stringify(o);
      return copy.join('\n');
    };
    expect(
      importError(() =>
        importLog(
          broken(3, (o) => delete o.timestamp),
          's.jsonl',
        ),
      ).message,
    ).toBe('s.jsonl:3: user record: "timestamp" must be an ISO-8601 time, got nothing (the field is missing)');
    expect(
      importError(() =>
        importLog(
          broken(4, (o) => ((o.message as Record<string, unknown>).content = 7)),
          's.jsonl',
        ),
      ).message,
    ).toBe('s.jsonl:4: assistant record: "message.content" must be a string or an array of blocks, got number 7');
    expect(
      importError(() =>
        importLog(
          broken(5, (o) => ((o.message as Record<string, unknown>).content = ['x'])),
          's.jsonl',
        ),
      ).message,
    ).toBe('s.jsonl:5: assistant record: message.content[0] must be a block with a "type", got string "x"');
    expect(importError(() => importLog(`${lines[0]}\n[1, 2]`, 's.jsonl')).message).toBe(
      's.jsonl:2: expected a Claude Code transcript record {"type": ..., ...}, got an array',
    );
  });
});

describe('importLog: formats', () => {
  it('detects the format from the first line, and refuses what it does not know', () => {
    expect(importLog(read(CLAUDE_CODE), 'a').format).toBe('claude-code');
    expect(importLog(read(MESSAGES_LOG), 'b').format).toBe('messages-log');
    expect(importError(() => importLog('{"hello": 1}', 'c.jsonl')).message).toBe(
      'c.jsonl:1: not a format I know (messages-log, claude-code); name it with --from',
    );
    expect(() => importLog('{}', 'd', 'csv')).toThrow('--from: unknown format "csv"; known: messages-log, claude-code');
  });
});

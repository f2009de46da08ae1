/**
 * Reading traces: {@link readTrace} streams a file line by line,
 * {@link parseTrace} parses text in memory. Both run the same
 * {@link TraceLineParser}, which enforces every rule of docs/trace-format.md
 * and throws a {@link TraceParseError} naming the line and the rule.
 */
import { TraceParseError } from './errors.js';
import type { TraceEvent, TraceRule } from './types.js';
import { FieldError, toEvent } from './validate.js';

type State =
  /** nothing read yet: an envelope must come */
  | 'start'
  /** envelope read, no user yet: a user must come */
  | 'after_envelope'
  /** after a user or a tool_results event: the next request's response comes */
  | 'expect_assistant'
  /** an assistant with tool_use: its tool_results must come */
  | 'open'
  /** an assistant without tool_use ended the turn: a user must come */
  | 'turn_ended';

/**
 * The deepest nesting of objects and arrays a trace line may have. JSON.parse
 * takes any depth, but copying, freezing and serializing a request recurse, and
 * overflow the stack at a few thousand levels; a tool input this deep is not a
 * real one. Lines deeper than this are refused (`too_deep`) with their line.
 */
export const MAX_NESTING = 256;

/** Returns a depth over `max` if `value` nests deeper than that (iterative: no recursion of its own). */
function nestingBeyond(value: unknown, max: number): number | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) return d + 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
    }
  }
  return undefined;
}

interface OpenUse {
  readonly name: string;
  readonly line: number;
}

/**
 * The rule engine behind the readers: feed it lines in order with
 * {@link TraceLineParser.push}, then call {@link TraceLineParser.end}.
 * It keeps the open tool_use ids and, for messages and hide checks, the line of
 * every tool_use id seen (a few dozen bytes per call), never the events.
 */
export class TraceLineParser {
  readonly #file: string | undefined;
  #state: State = 'start';
  #line = 0;
  #events = 0;
  #lastAt: { at: number; iso: string; line: number } | undefined;
  #lastUserLine = 0;
  #lastAssistantLine = 0;
  /** Whether a response arrived since the last user event. */
  #roundsSinceUser = 0;
  readonly #open = new Map<string, OpenUse>();
  /** tool_use id → [line used, line answered (0 = open)]. */
  readonly #seen = new Map<string, [number, number]>();

  constructor(file?: string) {
    this.#file = file;
  }

  /** Parses the next physical line. Returns its event, or undefined for a blank line. */
  push(text: string): TraceEvent | undefined {
    this.#line += 1;
    if (this.#line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    // Blank lines are allowed (a trailing newline, concatenated files) and still count as lines.
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const msg = (e as Error).message;
      const pos = /at position (\d+)/.exec(msg);
      throw this.#error('invalid_json', `not valid JSON (${msg}); each line must be one JSON object`, pos ? Number(pos[1]) + 1 : undefined);
    }
    const depth = nestingBeyond(value, MAX_NESTING);
    if (depth !== undefined) {
      throw this.#error(
        'too_deep',
        `the line nests objects and arrays more than ${MAX_NESTING} levels deep; the engine copies and serializes values recursively and accepts at most ${MAX_NESTING}`,
      );
    }
    let event: TraceEvent;
    try {
      if (this.#state === 'start' && (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'envelope')) {
        const t = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
        throw new FieldError(
          'first_not_envelope',
          `the first event must be an envelope, got ${typeof t === 'string' ? `"${t}"` : 'a line without a string "type"'}`,
        );
      }
      event = toEvent(value, this.#line);
    } catch (e) {
      if (e instanceof FieldError) throw this.#error(e.rule, e.message, e.column);
      throw e;
    }
    this.#checkTime(event);
    this.#sequence(event);
    this.#events += 1;
    return event;
  }

  /** Checks what must hold at the end of the file. */
  end(): void {
    if (this.#events === 0) throw this.#error('empty_trace', 'empty trace: expected an envelope event on the first line', undefined, Math.max(this.#line, 1));
    // A session may end on tool calls whose results never came (it was stopped): no request
    // follows them, so the rule "answered before the next assistant event" holds.
  }

  #error(rule: TraceRule, reason: string, column?: number, line = this.#line): TraceParseError {
    return new TraceParseError(rule, reason, { file: this.#file, line, column });
  }

  #openList(): string {
    return [...this.#open].map(([id, u]) => `${id} (${u.name}, line ${u.line})`).join(', ');
  }

  #checkTime(event: TraceEvent): void {
    if (!('at' in event) || event.at === undefined) return;
    const prev = this.#lastAt;
    if (prev !== undefined && event.at < prev.at) {
      throw this.#error(
        'time_went_backwards',
        `${event.type}.at ${event.atIso} is earlier than ${prev.iso} on line ${prev.line}; times must never go backwards`,
      );
    }
    this.#lastAt = { at: event.at, iso: event.atIso!, line: this.#line };
  }

  #sequence(event: TraceEvent): void {
    const state = this.#state;
    if (state === 'start') {
      this.#state = 'after_envelope';
      return;
    }
    if (state === 'after_envelope' && event.type !== 'user') {
      throw this.#error('expected_user', `the first event after the envelope must be a user event, got ${event.type}`);
    }
    switch (event.type) {
      case 'envelope':
      case 'tail':
        return;
      case 'hide': {
        const id = event.tool_use_id;
        if (id === undefined) return;
        const seen = this.#seen.get(id);
        if (seen === undefined) throw this.#error('unknown_hide_target', `hide names tool_use id "${id}", which no earlier assistant event used`);
        if (seen[1] === 0) throw this.#error('unknown_hide_target', `hide names tool_use id "${id}" (line ${seen[0]}), whose result has not arrived yet`);
        return;
      }
      case 'user':
        if (state === 'open') {
          throw this.#error('unanswered_tool_use', `user event while tool_use ids are open: ${this.#openList()}; a tool_results event must answer them first`);
        }
        // Two user events in a row (the user wrote again before the model answered) are two
        // user messages; the engine sends them as one, as the API merges consecutive roles.
        this.#state = 'expect_assistant';
        this.#lastUserLine = this.#line;
        this.#roundsSinceUser = 0;
        return;
      case 'assistant': {
        if (state === 'open') {
          throw this.#error(
            'unanswered_tool_use',
            `assistant event while tool_use ids are open: ${this.#openList()}; expected a tool_results event answering them`,
          );
        }
        if (state === 'turn_ended') {
          throw this.#error(
            'expected_user',
            `assistant event after the turn ended (the assistant on line ${this.#lastAssistantLine} had no tool_use); expected a user event`,
          );
        }
        for (const b of event.content) {
          if (b.type !== 'tool_use') continue;
          const prev = this.#seen.get(b.id);
          if (prev !== undefined) {
            throw this.#error(
              'duplicate_tool_use',
              `tool_use id "${b.id}" was already used ${prev[0] === this.#line ? 'earlier on this line' : `on line ${prev[0]}`}; ids must be unique in a session`,
            );
          }
          this.#seen.set(b.id, [this.#line, 0]);
          this.#open.set(b.id, { name: b.name, line: this.#line });
        }
        this.#state = this.#open.size > 0 ? 'open' : 'turn_ended';
        this.#lastAssistantLine = this.#line;
        this.#roundsSinceUser += 1;
        return;
      }
      case 'tool_results': {
        if (state !== 'open') {
          const why =
            state === 'turn_ended'
              ? `the assistant on line ${this.#lastAssistantLine} had no tool_use`
              : `no assistant event since the ${this.#roundsSinceUser === 0 ? `user event on line ${this.#lastUserLine}` : `tool_results it answered`}`;
          throw this.#error('unexpected_event', `tool_results event but no tool_use is open (${why})`);
        }
        for (const b of event.content) {
          if (b.type !== 'tool_result') continue;
          const id = b.tool_use_id;
          if (!this.#open.has(id)) {
            const seen = this.#seen.get(id);
            if (seen === undefined) {
              throw this.#error(
                'unknown_tool_use',
                `tool_results answers unknown tool_use id "${id}" (open ids: ${[...this.#open.keys()].join(', ') || 'none'})`,
              );
            }
            throw this.#error(
              'duplicate_tool_result',
              `tool_results answers tool_use id "${id}" again (already answered ${seen[1] === this.#line ? 'earlier on this line' : `on line ${seen[1]}`}); each tool_use gets exactly one tool_result`,
            );
          }
          this.#open.delete(id);
          this.#seen.get(id)![1] = this.#line;
        }
        // Results may arrive over several events (one per finished call); the round stays
        // open until every id is answered, and the next assistant or user event checks that.
        this.#state = this.#open.size > 0 ? 'open' : 'expect_assistant';
        return;
      }
    }
  }
}

/**
 * Parses a whole trace held in memory.
 *
 * @param text the JSONL text
 * @param file a name for error messages (e.g. the path it came from)
 * @throws {TraceParseError} on the first line that breaks a rule
 *
 * @example
 * const events = parseTrace(readFileSync('fixtures/demo.jsonl', 'utf8'), 'fixtures/demo.jsonl');
 * events.filter((e) => e.type === 'assistant').length; // number of requests
 */
export function parseTrace(text: string, file?: string): TraceEvent[] {
  const parser = new TraceLineParser(file);
  const events: TraceEvent[] = [];
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines) {
    const e = parser.push(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (e !== undefined) events.push(e);
  }
  parser.end();
  return events;
}

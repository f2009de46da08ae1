/**
 * What every importer shares: reading JSON lines with errors that name the
 * line, a builder that writes events in the trace format's order (clamping a
 * time that goes backwards, answering calls that never got a result), the
 * estimated envelope for logs that lack one, and the final check by the trace
 * reader, whose errors are mapped back to the input line.
 */
import { TraceParseError } from '../trace/errors.js';
import { parseTrace } from '../trace/parse.js';
import { describe } from '../trace/validate.js';
import { engineTextTokens, tiktokenCounter } from '../tokens/counter.js';
import { ImportError } from './errors.js';
import type { ImportedTrace, SourceLine, WireEvent } from './types.js';

export { describe };
export { withoutMarker } from '../internal/blocks.js';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses every non-blank line as JSON; a line that is not is an ImportError naming it (and the column), except
 * a last line with no newline after it: a log still being written (a live Claude Code session) ends in half a
 * record. That one is left out and passed to `onIncomplete`. `firstHint` ends the message when the very first
 * record is not JSON (the file is likely not a log at all: say what is read).
 */
export function parseLines(text: string, file: string, onIncomplete?: (line: number) => void, firstHint = ''): SourceLine[] {
  const out: SourceLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let raw = lines[i]!;
    if (i === 0 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
    if (raw.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (e) {
      if (onIncomplete && i === lines.length - 1 && out.length > 0) {
        onIncomplete(i + 1);
        break;
      }
      const msg = (e as Error).message;
      const pos = /at position (\d+)/.exec(msg);
      const hint = out.length === 0 ? firstHint : '';
      throw new ImportError(file, i + 1, `not valid JSON${pos ? ` at column ${Number(pos[1]) + 1}` : ''} (${msg}); each line must be one JSON object${hint}`);
    }
  }
  return out;
}

/** A date-time with no zone (`isoformat()`, `str(datetime)`): Date.parse would read it in the machine's zone. */
const ZONELESS = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)$/;

/** Whether `v` is a date-time string without a zone (read as UTC by {@link timeOf}). */
export const isZoneless = (v: unknown): v is string => typeof v === 'string' && ZONELESS.test(v.trim());

/**
 * Parses an ISO-8601 time; undefined when absent or unreadable. A date-time without a zone is read as UTC, so
 * the same log gives the same trace on every machine (callers warn, see {@link isZoneless}).
 */
export function timeOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v > 1e12 ? v : v * 1000; // epoch ms or s
  if (typeof v !== 'string') return undefined;
  const bare = ZONELESS.exec(v.trim());
  const t = Date.parse(bare ? `${bare[1]}T${bare[2]}Z` : v);
  return Number.isNaN(t) ? undefined : t;
}

type Block = Obj & { type: string };

/**
 * Writes one trace's events in order. Times never go backwards (a later event
 * stamped earlier is clamped to the previous time, with a warning); a user
 * event while calls are open first answers them with a flagged error result
 * (the runtime never recorded one: an interrupt).
 */
export class TraceBuilder {
  readonly events: WireEvent[] = [];
  readonly sources: number[] = [];
  readonly #open = new Map<string, number>();
  #lastAt = Number.NEGATIVE_INFINITY;
  #clamped = 0;
  #synthesized = 0;
  #merged = 0;

  constructor(
    readonly name: string,
    readonly warn: (message: string) => void,
  ) {}

  #time(at: number): string {
    if (at < this.#lastAt) {
      this.#clamped++;
      at = this.#lastAt;
    }
    this.#lastAt = at;
    return new Date(at).toISOString();
  }

  #push(event: WireEvent, line: number): void {
    this.events.push(event);
    this.sources.push(line);
  }

  get last(): WireEvent | undefined {
    return this.events.at(-1);
  }

  /** Whether any event besides the envelope was written. */
  get empty(): boolean {
    return this.events.length <= 1;
  }

  envelope(event: Omit<WireEvent, 'type'>, line: number): void {
    this.#push({ type: 'envelope', ...event }, line);
  }

  /** A user message; text after unanswered tool results is runtime text appended to them. */
  user(content: string | readonly Block[], at: number, line: number): void {
    this.#closeOpen(at, line);
    this.#push({ type: 'user', at: this.#time(at), content }, line);
  }

  /** Tool results (tool_result blocks first, then any text the runtime added). */
  toolResults(blocks: readonly Block[], at: number, line: number): void {
    const results = blocks.filter((b) => b.type === 'tool_result');
    const rest = blocks.filter((b) => b.type !== 'tool_result');
    const known = results.filter((b) => this.#open.delete(String(b.tool_use_id)));
    if (known.length < results.length) {
      this.warn(`${this.name}: line ${line}: dropped ${results.length - known.length} tool_result(s) answering no open tool_use`);
    }
    if (known.length === 0) {
      if (rest.length > 0) this.text(rest, at, line);
      return;
    }
    this.#push({ type: 'tool_results', at: this.#time(at), content: [...known, ...rest] }, line);
  }

  /**
   * Text the runtime sends after tool results (a hook's note, a reminder): appended
   * to the last tool_results event when no response came since; otherwise a user event.
   */
  text(blocks: readonly Block[], at: number, line: number): void {
    const last = this.last;
    if (last?.type === 'tool_results' && this.#open.size === 0) {
      (last.content as Block[]).push(...blocks.filter((b) => b.type === 'text'));
      this.#time(at);
      return;
    }
    this.user(blocks, at, line);
  }

  /** One model response. A response right after a response without tool calls is merged into it. */
  assistant(content: readonly Block[], at: number, line: number, extra: Obj = {}): void {
    const last = this.last;
    if (last?.type === 'assistant' && this.#open.size === 0) {
      this.#merged++;
      (last.content as Block[]).push(...content);
    } else {
      this.#closeOpen(at, line);
      this.#push({ type: 'assistant', at: this.#time(at), content: [...content], ...extra }, line);
    }
    for (const b of content) if (b.type === 'tool_use') this.#open.set(String(b.id), line);
  }

  #closeOpen(at: number, line: number): void {
    if (this.#open.size === 0) return;
    const ids = [...this.#open.keys()];
    this.#synthesized += ids.length;
    this.#open.clear();
    this.#push(
      {
        type: 'tool_results',
        at: this.#time(at),
        content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, is_error: true, content: '[no result recorded: the call was interrupted]' })),
        imported: { synthesized: true },
      },
      line,
    );
  }

  /** Checks the events with the trace reader and reports what was repaired. */
  finish(file: string): ImportedTrace {
    if (this.#clamped) this.warn(`${this.name}: ${this.#clamped} time stamp(s) went backwards and were set to the previous time`);
    if (this.#synthesized) this.warn(`${this.name}: ${this.#synthesized} tool call(s) had no recorded result; answered with a flagged error result`);
    if (this.#merged) this.warn(`${this.name}: ${this.#merged} response(s) followed a response without tool calls and were merged into it`);
    const trace = { name: this.name, events: this.events, sources: this.sources };
    checkTrace(trace, file);
    return trace;
  }
}

/** Serializes a trace (one JSON object per line, final newline). */
export function formatImported(trace: ImportedTrace): string {
  return trace.events.map((e) => `${JSON.stringify(e)}\n`).join('');
}

/** Runs the trace reader over the result; its complaint is reported at the input line the event came from. */
export function checkTrace(trace: ImportedTrace, file: string): void {
  try {
    parseTrace(formatImported(trace));
  } catch (err) {
    if (!(err instanceof TraceParseError)) throw err;
    const source = trace.sources[err.line - 1] ?? 0;
    throw new ImportError(file, source, `the converted ${trace.name} trace breaks a rule of the trace format: ${err.reason}`);
  }
}

// ESTIMATED ENVELOPE

const WORDS =
  'the agent reads files edits code runs tests and reports results tools must be used carefully when a task needs several steps plan them first keep answers short cite paths exactly never invent output prefer small changes verify before claiming success'.split(
    ' ',
  );

/** Deterministic filler text of about `tokens` cl100k tokens (measured, not guessed). */
export function fillerText(tokens: number, label: string): string {
  const counter = tiktokenCounter();
  const head = `[${label}: placeholder of about ${tokens} tokens; the log does not record the real text]`;
  // Paragraphs counted one by one are not the whole text as the engine takes it (tokens merge across the joins; a
  // long text is estimated from samples, which moves in steps as it grows): write a little more than needed, then
  // keep the longest prefix the engine counts at most `tokens` (a binary search over its length).
  let text = head;
  let n = counter.count(text);
  for (let i = 0; n < tokens * 1.1 + 20 || engineTextTokens(counter, text) < tokens; ) {
    const words: string[] = [];
    for (let k = 0; k < 60; k++) words.push(WORDS[(i++ * 7 + k * 13) % WORDS.length]!);
    const para = `\n${words.join(' ')}.`;
    text += para;
    n += counter.count(para);
  }
  let lo = Math.min(head.length, text.length);
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (engineTextTokens(counter, text.slice(0, mid)) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/** How an envelope the log does not carry was filled in (written on the envelope event as `estimated`). */
export interface EnvelopeEstimate {
  readonly tokens: number;
  readonly basis: string;
  readonly instructions: boolean;
  readonly tools: boolean;
}

/**
 * A placeholder envelope of about `tokens` tokens: one instruction text (half)
 * and one tool definition per tool name the log used (the other half), each
 * flagged as a placeholder. Only sizes matter to caching; bytes stay fixed, so
 * the envelope is one stable prefix, as the real one was.
 */
export function estimatedEnvelope(tokens: number, toolNames: readonly string[], model: string | undefined, basis: string): Omit<WireEvent, 'type'> {
  const names = toolNames.length > 0 ? toolNames : [];
  const toolShare = names.length > 0 ? Math.round(tokens / 2) : 0;
  const per = names.length > 0 ? Math.max(20, Math.round(toolShare / names.length)) : 0;
  const estimate: EnvelopeEstimate = { tokens, basis, instructions: true, tools: names.length > 0 };
  return {
    ...(model ? { model } : {}),
    instructions: [fillerText(Math.max(1, tokens - toolShare), 'system prompt (estimated)')],
    tools: names.map((name) => ({ name, description: fillerText(per, `${name} tool definition (estimated)`), input_schema: { type: 'object' } })),
    estimated: estimate,
  };
}

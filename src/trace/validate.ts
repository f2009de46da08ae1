/**
 * Field-level checks: one JSON object → one typed event, or a TraceParseError
 * naming the field, what it holds and what was expected. Sequencing rules
 * (order of events, tool_use bookkeeping, time) live in reader.ts.
 */
import type { TraceEvent, TraceRule } from './types.js';
import { TRACE_EVENT_TYPES } from './types.js';

/** Thrown by the checks below; the reader adds the file and line. */
export class FieldError extends Error {
  readonly rule: TraceRule;
  readonly column: number | undefined;
  constructor(rule: TraceRule, message: string, column?: number) {
    super(message);
    this.rule = rule;
    this.column = column;
  }
}

type Obj = Record<string, unknown>;

function fail(rule: TraceRule, message: string): never {
  throw new FieldError(rule, message);
}

/** A short description of a value for "got …" in messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
    case 'boolean':
      return `${typeof value} ${String(value)}`;
    case 'undefined':
      return 'nothing (the field is missing)';
    default:
      return 'an object';
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Obj, key: string, where: string, opts: { optional?: boolean; nonEmpty?: boolean } = {}): string | undefined {
  const v = o[key];
  if (v === undefined && opts.optional) return undefined;
  if (typeof v !== 'string') fail('invalid_field', `${where}.${key} must be a string, got ${describe(v)}`);
  if (opts.nonEmpty && v.length === 0) fail('invalid_field', `${where}.${key} must not be empty`);
  return v;
}

function arr(o: Obj, key: string, where: string, what: string, nonEmpty: boolean): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) fail('invalid_field', `${where}.${key} must be an array of ${what}, got ${describe(v)}`);
  if (nonEmpty && v.length === 0) fail('invalid_field', `${where}.${key} must not be empty`);
  return v;
}

// ISO-8601 date-time with an explicit offset: a time without a zone would be
// read in the replaying machine's local time, which is not reproducible.
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;

/** Parses an ISO-8601 date-time with an offset to epoch ms; undefined when it is not one. */
export function parseIsoTime(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) return undefined;
  const offset = m[8]!.toUpperCase();
  const frac = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  let ms = Date.UTC(y, mo - 1, d, h, mi, s) + Math.floor(frac);
  if (offset !== 'Z') {
    const sign = offset[0] === '-' ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2));
    if (oh > 23 || om > 59) return undefined;
    ms -= sign * (oh * 60 + om) * 60_000;
  }
  return ms;
}

function time(o: Obj, where: string, optional: boolean): { at: number; atIso: string } | undefined {
  const v = o.at;
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string') fail('invalid_time', `${where}.at must be an ISO-8601 time string like "2026-03-02T09:14:07.120Z", got ${describe(v)}`);
  const at = parseIsoTime(v);
  if (at === undefined)
    fail('invalid_time', `${where}.at ${JSON.stringify(v)} is not a valid ISO-8601 date-time with a zone (expected e.g. "2026-03-02T09:14:07.120Z")`);
  return { at, atIso: v };
}

/** Checks a generic content block: an object with a string `type`; text blocks need `text`. */
function block(v: unknown, where: string): Obj {
  if (!isObj(v)) fail('invalid_field', `${where} must be a content block object, got ${describe(v)}`);
  if (typeof v.type !== 'string') fail('invalid_field', `${where}.type must be a string, got ${describe(v.type)}`);
  if (v.type === 'text') str(v, 'text', where);
  return v;
}

function blocks(o: Obj, where: string): Obj[] {
  return arr(o, 'content', where, 'content blocks', true).map((b, i) => block(b, `${where}.content[${i}]`));
}

const ASSISTANT_BLOCKS = ['text', 'thinking', 'redacted_thinking', 'tool_use'];

function assistantBlock(b: Obj, where: string): void {
  switch (b.type) {
    case 'text':
      return;
    case 'thinking':
      str(b, 'thinking', where);
      str(b, 'signature', where);
      return;
    case 'redacted_thinking':
      str(b, 'data', where, { nonEmpty: true });
      return;
    case 'tool_use':
      str(b, 'id', where, { nonEmpty: true });
      str(b, 'name', where, { nonEmpty: true });
      if (!isObj(b.input)) fail('invalid_field', `${where}.input must be an object (the tool's arguments), got ${describe(b.input)}`);
      return;
    default:
      fail('invalid_field', `${where}.type is "${String(b.type)}"; an assistant event holds only ${ASSISTANT_BLOCKS.join(', ')} blocks`);
  }
}

function toolResultBlock(b: Obj, where: string): void {
  str(b, 'tool_use_id', where, { nonEmpty: true });
  const c = b.content;
  if (c !== undefined && typeof c !== 'string') {
    if (!Array.isArray(c)) fail('invalid_field', `${where}.content must be a string or an array of content blocks, got ${describe(c)}`);
    c.forEach((x, i) => {
      block(x, `${where}.content[${i}]`);
    });
  }
  if (b.is_error !== undefined && typeof b.is_error !== 'boolean') fail('invalid_field', `${where}.is_error must be a boolean, got ${describe(b.is_error)}`);
  const d = b.duration_ms;
  if (d !== undefined && (typeof d !== 'number' || !Number.isFinite(d) || d < 0))
    fail('invalid_field', `${where}.duration_ms must be a non-negative number of milliseconds, got ${describe(d)}`);
}

function tool(v: unknown, where: string): void {
  if (!isObj(v)) fail('invalid_field', `${where} must be a tool definition object, got ${describe(v)}`);
  str(v, 'name', where, { nonEmpty: true });
  // Server tools (web_search_20250305, bash_20250124, …) have a versioned `type` and no schema.
  if (v.type === undefined || v.type === null || v.type === 'custom') {
    if (!isObj(v.input_schema)) fail('invalid_field', `${where}.input_schema must be a JSON schema object, got ${describe(v.input_schema)}`);
  } else if (typeof v.type !== 'string') {
    fail('invalid_field', `${where}.type must be a string, got ${describe(v.type)}`);
  }
}

/**
 * Turns one parsed JSON value into a typed event, checking every field.
 * Unknown top-level fields are ignored (forward compatibility); unknown fields
 * inside content blocks are kept as they are.
 */
export function toEvent(value: unknown, line: number): TraceEvent {
  if (!isObj(value)) fail('not_an_object', `each line must be a JSON object, got ${describe(value)}`);
  const type = value.type;
  if (typeof type !== 'string' || !(TRACE_EVENT_TYPES as readonly string[]).includes(type)) {
    const got = type === undefined ? 'no "type" field' : `type ${describe(type)}`;
    fail('unknown_type', `unknown event: ${got}; expected one of ${TRACE_EVENT_TYPES.join(', ')}`);
  }
  switch (type) {
    case 'envelope': {
      const instructions = arr(value, 'instructions', 'envelope', 'strings', false);
      instructions.forEach((s, i) => {
        if (typeof s !== 'string') fail('invalid_field', `envelope.instructions[${i}] must be a string, got ${describe(s)}`);
      });
      const tools = arr(value, 'tools', 'envelope', 'tool definitions', false);
      tools.forEach((t, i) => {
        tool(t, `envelope.tools[${i}]`);
      });
      if (value.skills !== undefined) {
        arr(value, 'skills', 'envelope', '{name, description} objects', false).forEach((s, i) => {
          const w = `envelope.skills[${i}]`;
          if (!isObj(s)) fail('invalid_field', `${w} must be a {name, description} object, got ${describe(s)}`);
          str(s, 'name', w, { nonEmpty: true });
          str(s, 'description', w);
        });
      }
      const model = str(value, 'model', 'envelope', { optional: true, nonEmpty: true });
      return {
        type,
        line,
        ...(model === undefined ? {} : { model }),
        instructions: instructions as string[],
        tools: tools as never[],
        ...(value.skills === undefined ? {} : { skills: value.skills as never[] }),
      };
    }
    case 'user': {
      const t = time(value, 'user', false)!;
      const c = value.content;
      if (typeof c === 'string') {
        if (c.length === 0) fail('invalid_field', 'user.content must not be empty');
        return { type, line, ...t, content: c };
      }
      if (!Array.isArray(c)) fail('invalid_field', `user.content must be a string or an array of content blocks, got ${describe(c)}`);
      const bs = blocks(value, 'user');
      bs.forEach((b, i) => {
        if (b.type === 'tool_result') fail('invalid_field', `user.content[${i}] is a tool_result; tool results belong in a tool_results event`);
      });
      return { type, line, ...t, content: bs as never[] };
    }
    case 'assistant': {
      const t = time(value, 'assistant', false)!;
      const bs = blocks(value, 'assistant');
      bs.forEach((b, i) => {
        assistantBlock(b, `assistant.content[${i}]`);
      });
      return { type, line, ...t, content: bs as never[] };
    }
    case 'tool_results': {
      const t = time(value, 'tool_results', false)!;
      const bs = blocks(value, 'tool_results');
      let sawText = -1;
      bs.forEach((b, i) => {
        const w = `tool_results.content[${i}]`;
        if (b.type === 'tool_result') {
          if (sawText >= 0)
            fail('invalid_field', `${w} is a tool_result after the text block at content[${sawText}]; tool_result blocks come first, runtime text after them`);
          toolResultBlock(b, w);
        } else if (b.type === 'text') {
          if (i === 0) fail('invalid_field', `${w} is a text block; a tool_results event starts with tool_result blocks`);
          if (sawText < 0) sawText = i;
        } else {
          fail('invalid_field', `${w}.type is "${String(b.type)}"; a tool_results event holds tool_result blocks, then optional text blocks`);
        }
      });
      return { type, line, ...t, content: bs as never[] };
    }
    case 'tail': {
      const t = time(value, 'tail', true);
      const bs = blocks(value, 'tail');
      return { type, line, ...t, content: bs as never[] };
    }
    case 'hide': {
      const t = time(value, 'hide', true);
      const id = str(value, 'tool_use_id', 'hide', { optional: true, nonEmpty: true });
      const path = str(value, 'path', 'hide', { optional: true, nonEmpty: true });
      const note = str(value, 'note', 'hide', { optional: true });
      if (id === undefined && path === undefined)
        fail('invalid_field', 'hide needs "tool_use_id" (the tool whose result to hide) or "path" (the logical path of a block)');
      return {
        type,
        line,
        ...t,
        ...(id === undefined ? {} : { tool_use_id: id }),
        ...(path === undefined ? {} : { path }),
        ...(note === undefined ? {} : { note }),
      };
    }
    default:
      throw new Error('unreachable');
  }
}

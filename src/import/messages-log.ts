/**
 * `messages-log`: JSON Lines of Messages API request/response pairs, what a
 * logging proxy or an SDK wrapper records. One line per model call:
 *
 *   {"request": {model, system, tools, messages, ...}, "response": {content, usage, ...},
 *    "timestamp": ISO (request start), "response_timestamp"?: ISO, "duration_ms"?: n}
 *
 * Accepted time fields on the line: `timestamp`, `time`, `at`, `created_at`,
 * `request_time`, `started_at` for the request; `response_timestamp`,
 * `response_time`, `completed_at`, `ended_at` (or `duration_ms` / `latency_ms`
 * after the start) for the response. Without any, requests are spaced 5 s apart
 * (a warning says so): TTL effects are then invented, not measured.
 *
 * Every request holds the whole conversation so far. A request whose messages
 * extend a known conversation (its previous request's messages plus that
 * response) continues it; any other request starts a new conversation, so
 * interleaved sessions separate into one trace each, and a history the client
 * rewrote (its own compaction) starts a new trace too. A request that repeats
 * its conversation's last request (a retry after a response the client dropped,
 * a regenerate) replaces that response: the trace format has one response per
 * request. A line that records an API error instead of a response (`response`
 * of type `error`, or an `error` and no `response`) is skipped: the retry after
 * it continues the conversation.
 */
import { describe, isObj, isZoneless, withoutMarker, TraceBuilder, timeOf, type Obj } from './common.js';
import { ImportError } from './errors.js';
import type { ImportFormat, ImportResult, SourceLine } from './types.js';

type Block = Obj & { type: string };

const REQUEST_TIME = ['timestamp', 'time', 'at', 'created_at', 'request_time', 'started_at'] as const;
const RESPONSE_TIME = ['response_timestamp', 'response_time', 'completed_at', 'ended_at'] as const;
const STEP_MS = 5000;

interface Conversation {
  readonly builder: TraceBuilder;
  /** The canonical JSON of each message the conversation holds so far (request messages + responses). */
  readonly keys: string[];
  envelopeKey: string;
  /** The last response, kept out of the trace until a request extends it: a repeat of its request replaces it. */
  last?: { readonly key: string; readonly line: number; readonly add: () => void };
}

/** The keys the next request of `c` extends: its messages and its last response. */
const heldKeys = (c: Conversation): readonly string[] => (c.last ? [...c.keys, c.last.key] : c.keys);

/** The error type of an API error logged in place of a response (the proxy recorded the failed call), or undefined. */
function apiError(value: unknown): string | undefined {
  if (!isObj(value)) return undefined;
  const { response } = value;
  const failed = isObj(response) ? response.type === 'error' : response === undefined && value.error !== undefined && value.error !== null;
  if (!failed) return undefined;
  const error = isObj(response) ? response.error : value.error;
  return isObj(error) && typeof error.type === 'string' ? error.type : 'error';
}

const canon = (v: unknown): string => JSON.stringify(withoutMarker(v));
/**
 * A message's identity for matching a request to its conversation: role and blocks without
 * cache markers; a string is its one text block; thinking is left out (clients may drop it
 * when they send a response back).
 */
function messageKey(m: Obj): string {
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Obj[]);
  const kept = m.role === 'assistant' ? blocks.filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking') : blocks;
  return `${String(m.role)}:${canon(kept)}`;
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return (content as unknown[]).map((b) => withoutMarker(b) as Block);
}

function systemTexts(system: unknown): string[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return [system];
  return (system as Obj[]).map((b) => String(b.text ?? ''));
}

function check(file: string, line: number, value: unknown): { request: Obj; response: Obj } {
  if (!isObj(value)) throw new ImportError(file, line, `expected {"request": {...}, "response": {...}}, got ${describe(value)}`);
  const { request, response } = value;
  if (!isObj(request)) throw new ImportError(file, line, `"request" must be a Messages API request body, got ${describe(request)}`);
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new ImportError(file, line, `"request.messages" must be a non-empty array, got ${describe(request.messages)}`);
  }
  request.messages.forEach((m, k) => {
    if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant') || (typeof m.content !== 'string' && !Array.isArray(m.content))) {
      throw new ImportError(file, line, `request.messages[${k}] must be {"role": "user"|"assistant", "content": string or blocks}, got ${describe(m)}`);
    }
  });
  if (request.system !== undefined && typeof request.system !== 'string' && !Array.isArray(request.system)) {
    throw new ImportError(file, line, `"request.system" must be a string or text blocks, got ${describe(request.system)}`);
  }
  if (request.tools !== undefined && !Array.isArray(request.tools))
    throw new ImportError(file, line, `"request.tools" must be an array, got ${describe(request.tools)}`);
  if (!isObj(response)) throw new ImportError(file, line, `"response" must be the Messages API response, got ${describe(response)}`);
  if (!Array.isArray(response.content))
    throw new ImportError(file, line, `"response.content" must be an array of content blocks, got ${describe(response.content)}`);
  return { request, response };
}

function convert(lines: readonly SourceLine[], file: string): ImportResult {
  const warnings: string[] = [];
  const conversations: Conversation[] = [];
  let synthetic = 0;
  let lastAt = Date.parse('2026-01-01T00:00:00.000Z') - STEP_MS;
  const errors: string[] = [];
  const repeats: string[] = [];
  const zoneless = { count: 0, first: '' };
  for (const { line, value } of lines) {
    const error = apiError(value);
    if (error !== undefined) {
      errors.push(`line ${line}: ${error}`);
      continue;
    }
    const { request, response } = check(file, line, value);
    const v = value as Obj;
    for (const k of [...REQUEST_TIME, ...RESPONSE_TIME]) {
      if (!isZoneless(v[k])) continue;
      if (zoneless.count++ === 0) zoneless.first = `line ${line}: ${JSON.stringify(v[k])}`;
    }
    let start = REQUEST_TIME.map((k) => timeOf(v[k])).find((t) => t !== undefined);
    if (start === undefined) {
      synthetic++;
      start = lastAt + STEP_MS;
    }
    const latency = typeof v.duration_ms === 'number' ? v.duration_ms : typeof v.latency_ms === 'number' ? v.latency_ms : undefined;
    const end = RESPONSE_TIME.map((k) => timeOf(v[k])).find((t) => t !== undefined) ?? (latency !== undefined ? start + latency : start);
    lastAt = Math.max(start, end);

    const messages = request.messages as Obj[];
    const keys = messages.map(messageKey);
    const envelope = {
      ...(typeof request.model === 'string' ? { model: request.model } : {}),
      instructions: systemTexts(request.system),
      tools: ((request.tools as unknown[] | undefined) ?? []).map((b) => withoutMarker(b)),
    };
    const envelopeKey = canon(envelope);
    const respond = (c: Conversation) => () =>
      c.builder.assistant(blocksOf(response.content), end, line, isObj(response.usage) ? { usage: response.usage } : {});
    const responseKey = messageKey({ role: 'assistant', content: response.content });
    // A repeat of a conversation's last request, with the same envelope: its response replaces the last one.
    let conv = conversations.find((c) => c.last && c.envelopeKey === envelopeKey && c.keys.length === keys.length && c.keys.every((k, i) => k === keys[i]));
    if (conv?.last) {
      repeats.push(`line ${line} repeats line ${conv.last.line}`);
      conv.last = { key: responseKey, line, add: respond(conv) };
      continue;
    }
    // The conversation this request continues: the longest whose messages are a prefix of it.
    let held: readonly string[] = [];
    for (const c of conversations) {
      const h = heldKeys(c);
      if (h.length < keys.length && h.every((k, i) => k === keys[i]) && (!conv || h.length > held.length)) {
        conv = c;
        held = h;
      }
    }
    if (conv?.last) {
      conv.last.add();
      conv.keys.push(conv.last.key);
      delete conv.last;
    }
    if (!conv) {
      const name = conversations.length === 0 ? 'main' : `conversation-${conversations.length + 1}`;
      conv = { builder: new TraceBuilder(name, (w) => warnings.push(w)), keys: [], envelopeKey };
      conversations.push(conv);
      conv.builder.envelope(envelope, line);
    } else if (conv.envelopeKey !== envelopeKey) {
      conv.envelopeKey = envelopeKey;
      conv.builder.envelope(envelope, line);
    }
    for (const m of messages.slice(conv.keys.length)) {
      const blocks = blocksOf(m.content);
      if (m.role === 'assistant') {
        // An assistant message the log never saw as a response (a prefill, or history written by hand).
        conv.builder.assistant(blocks, start, line);
      } else if (blocks.some((b) => b.type === 'tool_result')) {
        conv.builder.toolResults(blocks, start, line);
      } else {
        conv.builder.user(blocks.length === 1 && blocks[0]!.type === 'text' && typeof m.content === 'string' ? m.content : blocks, start, line);
      }
    }
    conv.keys.push(...keys.slice(conv.keys.length));
    conv.last = { key: responseKey, line, add: respond(conv) };
  }
  for (const c of conversations) c.last?.add();
  if (lines.length === 0) throw new ImportError(file, 1, 'empty log: expected one {"request", "response"} object per line');
  if (conversations.length === 0) throw new ImportError(file, 1, `no model response to import: every line is an API error (${errors.slice(0, 3).join(', ')})`);
  if (errors.length > 0) {
    const n = errors.length;
    warnings.push(
      `${n} ${n === 1 ? 'line was an API error' : 'lines were API errors'}, not a model response (${errors.slice(0, 3).join(', ')}${n > 3 ? ', …' : ''}): skipped`,
    );
  }
  if (repeats.length > 0) {
    const n = repeats.length;
    warnings.push(
      `${n} ${n === 1 ? 'line repeated the request' : 'lines repeated the request'} before it (a retry or regenerate: ${repeats.slice(0, 3).join(', ')}${n > 3 ? ', …' : ''}): the trace keeps the later response`,
    );
  }
  if (zoneless.count > 0) {
    warnings.push(`${zoneless.count} time stamps have no zone (${zoneless.first}): read as UTC; log times with a zone (Z or ±hh:mm)`);
  }
  if (synthetic > 0)
    warnings.push(
      `${synthetic} of ${lines.length} lines had no time stamp: those requests are spaced ${STEP_MS / 1000} s apart (cache expiry is then not measured)`,
    );
  if (conversations.length > 1)
    warnings.push(`the log holds ${conversations.length} conversations (requests that do not extend an earlier one start a new trace)`);
  return { traces: conversations.map((c) => c.builder.finish(file)), warnings };
}

export const messagesLog: ImportFormat = {
  id: 'messages-log',
  description: 'JSON Lines of Messages API {request, response} pairs (a logging proxy, an SDK wrapper)',
  detect: (first) => isObj(first) && isObj(first.request) && ('response' in first || 'error' in first),
  convert,
};

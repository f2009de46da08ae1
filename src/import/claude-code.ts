/**
 * `claude-code`: the JSON Lines transcripts Claude Code keeps per project
 * (`~/.claude/projects/<project>/<session>.jsonl`, subagents in
 * `<session>/subagents/agent-<id>.jsonl` or, in older versions, inline). No
 * official schema exists; what is read here, per record:
 *
 * - `type: "user"` with `message.content` a string or blocks: a prompt, or
 *   `tool_result` blocks (one record per finished call, `toolUseResult` has
 *   the run's `durationMs`/`totalDurationMs`); `isMeta` records are text the
 *   runtime injects and are kept (the model saw them);
 * - `type: "assistant"`: one record per content block of a response, sharing
 *   `message.id` (merged back into one response); `message.model`, and
 *   `message.usage` (kept on the event as the reported usage). Synthetic
 *   records (`isApiErrorMessage`, model `<synthetic>`) are no model response
 *   and are skipped;
 * - `timestamp` (ISO-8601) on every record; `isSidechain: true` (with
 *   `agentId`) marks a subagent's records, which become their own trace;
 * - `type: "system"` with `subtype: "compact_boundary"`: the context was
 *   compacted, so what follows is a new context and starts a new trace part;
 * - every other type (`summary`, `progress`, `file-history-snapshot`,
 *   `queue-operation`, other `system` records) carries nothing sent to the
 *   model and is skipped (counted in a warning).
 *
 * What a transcript lacks: the system prompt and the tool definitions. They
 * are the cached front of every request, so the importer fills them with a
 * placeholder of the right size, flagged `estimated` on the envelope: the size
 * is the first response's reported prompt (input + cache write + cache read
 * tokens) minus the first messages, or 15,000 tokens without usage; half goes
 * to one instruction text, half to one tool definition per tool name used.
 */
import { blockText, engineTextTokens, tiktokenCounter } from '../tokens/counter.js';
import { describe, estimatedEnvelope, isObj, withoutMarker, TraceBuilder, timeOf, type Obj } from './common.js';
import { ImportError } from './errors.js';
import type { ImportedTrace, ImportFormat, ImportResult, SourceLine } from './types.js';

type Block = Obj & { type: string };

/** Envelope size when no response reported usage (Claude Code's prompt and tools are roughly this large). */
export const DEFAULT_ENVELOPE_TOKENS = 15_000;
const MIN_ENVELOPE_TOKENS = 500;

interface Rec {
  readonly line: number;
  readonly type: 'user' | 'assistant' | 'boundary';
  readonly at: number;
  readonly message: Obj;
  readonly record: Obj;
}

function record(file: string, { line, value }: SourceLine): Rec | { skip: string } {
  if (!isObj(value) || typeof value.type !== 'string') {
    throw new ImportError(file, line, `expected a Claude Code transcript record {"type": ..., ...}, got ${describe(value)}`);
  }
  const type = value.type;
  if (type === 'system' && value.subtype === 'compact_boundary') {
    return { line, type: 'boundary', at: timeOf(value.timestamp) ?? 0, message: {}, record: value };
  }
  if (type !== 'user' && type !== 'assistant') return { skip: type };
  const at = timeOf(value.timestamp);
  if (at === undefined) throw new ImportError(file, line, `${type} record: "timestamp" must be an ISO-8601 time, got ${describe(value.timestamp)}`);
  const message = value.message;
  if (!isObj(message)) throw new ImportError(file, line, `${type} record: "message" must be an object with "content", got ${describe(message)}`);
  if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
    throw new ImportError(file, line, `${type} record: "message.content" must be a string or an array of blocks, got ${describe(message.content)}`);
  }
  if (Array.isArray(message.content)) {
    message.content.forEach((b, k) => {
      if (!isObj(b) || typeof b.type !== 'string')
        throw new ImportError(file, line, `${type} record: message.content[${k}] must be a block with a "type", got ${describe(b)}`);
    });
  }
  if (type === 'assistant' && (value.isApiErrorMessage === true || message.model === '<synthetic>')) return { skip: 'synthetic assistant (API error)' };
  return { line, type, at, message, record: value };
}

const blocksOf = (content: unknown): Block[] =>
  typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : (content as unknown[]).map((b) => withoutMarker(b) as Block);

function promptTokens(usage: unknown): number | undefined {
  if (!isObj(usage)) return undefined;
  const n = (k: string): number => (typeof usage[k] === 'number' ? (usage[k] as number) : 0);
  const total = n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens');
  return total > 0 ? total : undefined;
}

/** The envelope size of a thread: the first reported prompt minus the messages before it. */
function envelopeTokens(recs: readonly Rec[]): { tokens: number; basis: string } {
  let before = 0;
  for (const r of recs) {
    if (r.type === 'assistant') {
      const reported = promptTokens(r.message.usage);
      if (reported === undefined) break;
      return {
        tokens: Math.max(MIN_ENVELOPE_TOKENS, reported - before),
        basis: `the first response's reported prompt (${reported} tokens) minus the ${before} tokens of the messages before it (line ${r.line})`,
      };
    }
    // As the engine counts a block: its text, plus the fixed tokens of an image.
    for (const b of blocksOf(r.message.content)) {
      const { text, extra } = blockText(b);
      before += engineTextTokens(tiktokenCounter(), text) + extra;
    }
  }
  return { tokens: DEFAULT_ENVELOPE_TOKENS, basis: `no reported usage before the first response: the default ${DEFAULT_ENVELOPE_TOKENS} tokens` };
}

function build(name: string, recs: readonly Rec[], file: string, warn: (w: string) => void): ImportedTrace | undefined {
  const toolNames: string[] = [];
  let model: string | undefined;
  for (const r of recs) {
    if (r.type !== 'assistant') continue;
    if (model === undefined && typeof r.message.model === 'string') model = r.message.model;
    for (const b of blocksOf(r.message.content)) if (b.type === 'tool_use' && !toolNames.includes(String(b.name))) toolNames.push(String(b.name));
  }
  if (!recs.some((r) => r.type === 'assistant')) return undefined;
  const size = envelopeTokens(recs);
  const b = new TraceBuilder(name, warn);
  b.envelope(estimatedEnvelope(size.tokens, toolNames, model, size.basis), recs[0]?.line ?? 0);
  warn(
    `${name}: the transcript has no system prompt or tool definitions: the envelope is a flagged estimate of ${size.tokens} tokens (${size.basis}), ${toolNames.length} placeholder tool(s)`,
  );

  // One response arrives as several records sharing message.id: collect, then write once.
  let pending: { id: unknown; content: Block[]; at: number; line: number; usage: unknown } | undefined;
  const flush = (): void => {
    if (!pending) return;
    b.assistant(pending.content, pending.at, pending.line, isObj(pending.usage) ? { usage: pending.usage } : {});
    pending = undefined;
  };
  for (const r of recs) {
    if (r.type === 'assistant') {
      const id = r.message.id;
      if (pending && id !== undefined && pending.id === id) {
        pending.content.push(...blocksOf(r.message.content));
        pending.at = r.at;
        pending.usage = r.message.usage ?? pending.usage;
        continue;
      }
      flush();
      pending = { id, content: blocksOf(r.message.content), at: r.at, line: r.line, usage: r.message.usage };
      continue;
    }
    flush();
    const blocks = blocksOf(r.message.content);
    if (blocks.some((x) => x.type === 'tool_result')) {
      const tur = r.record.toolUseResult;
      const ms = isObj(tur)
        ? typeof tur.durationMs === 'number'
          ? tur.durationMs
          : typeof tur.totalDurationMs === 'number'
            ? tur.totalDurationMs
            : undefined
        : undefined;
      const results = blocks.map((x) =>
        x.type === 'tool_result' && ms !== undefined && blocks.filter((y) => y.type === 'tool_result').length === 1 ? { ...x, duration_ms: ms } : x,
      );
      b.toolResults(results, r.at, r.line);
    } else if (blocks.length > 0) {
      b.text(blocks, r.at, r.line);
    }
  }
  flush();
  return b.finish(file);
}

function convert(lines: readonly SourceLine[], file: string): ImportResult {
  const warnings: string[] = [];
  const skipped = new Map<string, number>();
  // Threads in order of first appearance: main parts, then subagents.
  const threads = new Map<string, Rec[]>();
  let part = 1;
  for (const l of lines) {
    const r = record(file, l);
    if ('skip' in r) {
      skipped.set(r.skip, (skipped.get(r.skip) ?? 0) + 1);
      continue;
    }
    const side = r.record.isSidechain === true;
    if (r.type === 'boundary') {
      if (!side && (threads.get(part === 1 ? 'main' : `main-${part}`)?.length ?? 0) > 0) part++;
      continue;
    }
    const key = side ? (typeof r.record.agentId === 'string' ? `agent-${r.record.agentId}` : 'sidechain') : part === 1 ? 'main' : `main-${part}`;
    const list = threads.get(key) ?? [];
    threads.set(key, list);
    list.push(r);
  }
  if (lines.length === 0) throw new ImportError(file, 1, 'empty transcript: expected one JSON record per line');
  const traces: ImportedTrace[] = [];
  for (const [name, recs] of threads) {
    const t = build(name, recs, file, (w) => warnings.push(w));
    if (t) traces.push(t);
    else warnings.push(`${name}: no model response in this thread; nothing to import`);
  }
  if (traces.length === 0) throw new ImportError(file, lines[0]!.line, 'no assistant record with a model response: nothing to replay');
  if (skipped.size > 0) warnings.push(`skipped records that carry nothing sent to the model: ${[...skipped].map(([k, v]) => `${k} (${v})`).join(', ')}`);
  if (part > 1) warnings.push(`the session was compacted ${part - 1} time(s): each context after a compaction is its own trace (main-2, …)`);
  return { traces, warnings };
}

export const claudeCode: ImportFormat = {
  id: 'claude-code',
  description: 'Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl)',
  detect: (first) =>
    isObj(first) &&
    typeof first.type === 'string' &&
    ('sessionId' in first || 'parentUuid' in first || first.type === 'summary' || first.type === 'file-history-snapshot' || first.type === 'queue-operation'),
  convert,
};

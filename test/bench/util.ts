/**
 * Shared helpers of the benchmarks: the row type every bench module returns,
 * robust statistics (medians and percentiles, never means: the machines are
 * shared and noisy), a high-resolution timer, a forced GC, the fixture traces,
 * and the table printer the runner uses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MessageCreateParamsNonStreaming, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { DEFAULT_MODEL } from '../../src/models/profiles.js';
import { hideBlock } from '../../src/render/hide-block.js';
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { appendResponse, appendToolResults, createTimeline, setEnvelope, setTail, startTurn } from '../../src/timeline/edit.js';
import { paths } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { parseTrace } from '../../src/trace/reader.js';
import type { TraceEvent } from '../../src/trace/types.js';

// TYPES

/** One line of a bench table. `baseline` says what the value is compared with (measured in the same run). */
export interface Row {
  name: string;
  value: number | string;
  unit?: string;
  baseline?: string;
}

/** What a bench module exports: a default function returning its rows, and optionally extra tables printed after them. */
export interface BenchModule {
  default: () => Promise<Row[]>;
  /** Extra text (e.g. a wide table) the module built during its run. */
  details?: () => string;
}

// STATISTICS

/** Median of a sample (the middle value; mean of the two middle values for even sizes). */
export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Percentile by linear interpolation between closest ranks (p in 0–100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const at = ((s.length - 1) * p) / 100;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
}

/** Nanoseconds one call of `fn` took (process.hrtime.bigint), and its result. */
export function timed<T>(fn: () => T): { ns: number; value: T } {
  const t0 = process.hrtime.bigint();
  const value = fn();
  return { ns: Number(process.hrtime.bigint() - t0), value };
}

/** Rounds to `digits` significant digits (for table values). */
export function sig(x: number, digits = 3): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(digits));
}

/** `×1.23` style ratio text. */
export function times(x: number, digits = 3): string {
  return `×${sig(x, digits)}`;
}

let collect: (() => void) | undefined;

/**
 * Forces a full garbage collection. Uses `global.gc` when node runs with
 * `--expose-gc`; otherwise exposes it at run time (V8 flag + a fresh context),
 * so `npm run bench` needs no extra node flags.
 */
export function forceGc(): void {
  if (!collect) {
    const g = (globalThis as { gc?: () => void }).gc;
    if (typeof g === 'function') collect = g;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  // Twice: the first pass may only schedule finalizers / weak-map clears.
  collect();
  collect();
}

// FIXTURES

/** The repository's `fixtures/` folder. */
export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** The committed fixture traces (name and raw JSONL text), by name. Empty when the folder is missing. */
export function fixtureTexts(): { name: string; text: string }[] {
  let names: string[];
  try {
    names = readdirSync(FIXTURES_DIR)
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => ({ name, text: readFileSync(join(FIXTURES_DIR, name), 'utf8') }));
}

/** Parses a fixture's text (fresh objects and strings on every call). */
export function parseFixture(text: string, name: string): TraceEvent[] {
  return parseTrace(text, name);
}

// DRIVING A SESSION

/** One model request of a driven session: the state before the render, and the render time the replay uses. */
export type RequestHook = (state: TimelineState, now: number, index: number) => Rendered;

function stripDuration(block: ToolResultBlockParam & { duration_ms?: number }): ToolResultBlockParam {
  if (!('duration_ms' in block)) return block;
  const { duration_ms: _d, ...rest } = block;
  return rest;
}

/**
 * Applies a trace's events to a session state the way `replay` does (render
 * before every assistant event, at the time of the event before it), but lets
 * the caller do, and time, the render. Returns the final state.
 */
export function drive(events: Iterable<TraceEvent>, onRequest: RequestHook, options: Omit<RenderOptions, 'now'> = {}): TimelineState {
  let state: TimelineState | undefined;
  let lastAt = 0;
  let index = 0;
  const need = (): TimelineState => {
    if (!state) throw new Error('bench: a trace event came before the envelope');
    return state;
  };
  for (const e of events) {
    switch (e.type) {
      case 'envelope': {
        const input = { instructions: e.instructions, tools: e.tools, ...(e.skills ? { skills: e.skills } : {}) };
        const model = e.model ?? state?.model ?? DEFAULT_MODEL;
        state = state ? setEnvelope(state, { ...input, model }) : createTimeline({ ...input, model });
        break;
      }
      case 'user':
        state = startTurn(need(), e.content, e.at);
        break;
      case 'assistant': {
        const r = onRequest(need(), lastAt, index++);
        state = appendResponse(r.state, e.content, e.at);
        break;
      }
      case 'tool_results': {
        const results = e.content.filter((b) => b.type === 'tool_result').map((b) => stripDuration(b as ToolResultBlockParam));
        const texts = e.content.filter((b) => b.type === 'text');
        state = appendToolResults(need(), results, texts as never, e.at);
        break;
      }
      case 'tail':
        state = setTail(need(), e.content);
        break;
      case 'hide': {
        const s = need();
        const path = e.path ?? resultPath(s, e.tool_use_id!);
        if (path) state = hideBlock(s, path, { ...options, now: lastAt, defer: true, ...(e.note ? { note: e.note } : {}) }).state;
        break;
      }
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return need();
}

function resultPath(state: TimelineState, toolUseId: string): string | undefined {
  for (let t = state.turns.length - 1; t >= 0; t--) {
    const turn = state.turns[t]!;
    for (const round of turn.rounds) if (round.results.some((b) => b.id === toolUseId)) return paths.result(turn.index, round.index, toolUseId);
  }
  return undefined;
}

/** Keeps a value observable so the optimizer cannot drop the work that produced it. */
export let sink: unknown;
export function consume(value: unknown): void {
  sink = value;
}

/** Re-exported for benches that time serialization of a request. */
export type Params = MessageCreateParamsNonStreaming;

// OUTPUT

/** Formats a value for the table: numbers to at most 4 significant digits, thousands kept readable. */
function cell(v: number | string): string {
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a >= 1000 ? v.toFixed(0) : String(sig(v, 4));
}

/** Prints rows as an aligned `name | value | unit | baseline` table. */
export function formatRows(rows: readonly Row[]): string {
  const table = [['name', 'value', 'unit', 'baseline'], ...rows.map((r) => [r.name, cell(r.value), r.unit ?? '', r.baseline ?? ''])];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...table.map((r) => r[c]!.length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join(' | ')
      .trimEnd();
  const out = [line(table[0]!), widths.map((w) => '-'.repeat(w)).join('-|-')];
  for (const r of table.slice(1)) out.push(line(r));
  return out.join('\n');
}

/** Whether this module is the script node was started with (to run a bench file on its own). */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;
}

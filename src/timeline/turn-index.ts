/**
 * The turn index (DESIGN.md "turn index"): what a summary points at. For one
 * turn, the exact path of every block it held, what it is, its size and
 * whether the model still sees it, so an agent that reads a summary can
 * re-open exactly what it needs. Recallable as `turns/N`.
 */
import type { ContentBlockParam, TextBlockParam } from '../providers/anthropic-types.js';
import type { BlockPath, TimelineState } from './types.js';
import { turnBlocks } from './paths.js';
import { hiddenSetOf } from './hidden.js';

const TURN_INDEX_PATH = /^turns\/(\d+)\/?$/;

/** The turn a `turns/N` path names, or undefined when `path` is not a turn index path. */
export function turnIndexOf(path: BlockPath): number | undefined {
  const m = TURN_INDEX_PATH.exec(path);
  return m ? Number(m[1]) : undefined;
}

/** The path of a turn's index. */
export function turnIndexPath(turn: number): BlockPath {
  return `turns/${turn}`;
}

function size(param: ContentBlockParam): number {
  switch (param.type) {
    case 'text':
      return param.text.length;
    case 'thinking':
      return param.thinking.length;
    case 'tool_result': {
      const c = param.content;
      if (c === undefined) return 0;
      if (typeof c === 'string') return c.length;
      return c.reduce((n, part) => n + (part.type === 'text' ? part.text.length : JSON.stringify(part).length), 0);
    }
    case 'tool_use':
      return JSON.stringify(param.input ?? {}).length;
    default:
      return JSON.stringify(param).length;
  }
}

function what(param: ContentBlockParam, toolNames: ReadonlyMap<string, string>): string {
  switch (param.type) {
    case 'tool_use':
      return `${param.name} call`;
    case 'tool_result':
      return `${toolNames.get(param.tool_use_id) ?? 'tool'} result${param.is_error ? ' (error)' : ''}`;
    default:
      return param.type;
  }
}

/**
 * The index of turn `turn` as a text block, or undefined when the state has no such turn.
 *
 * @example
 * turnIndex(state, 3)?.text
 * // Turn 3: 5 blocks. recall one of these paths to read it back unchanged.
 * // turns/3/user/0 · text, 31 chars · summarized (summaries/1)
 * // turns/3/rounds/1/calls/toolu_01 · Read call, 24 chars · summarized (summaries/1)
 * // …
 */
export function turnIndex(state: TimelineState, turn: number): TextBlockParam | undefined {
  const t = state.turns[turn - 1];
  if (!t || t.index !== turn) return undefined;
  const summarized = new Map<BlockPath, string>();
  for (const s of state.summaries) if (s.fromTurn <= turn && turn <= s.toTurn) for (const p of s.paths) summarized.set(p, s.path);
  const toolNames = new Map<string, string>();
  for (const r of t.rounds) for (const b of r.response) if (b.param.type === 'tool_use') toolNames.set(b.param.id, b.param.name);
  const lines: string[] = [];
  const held = hiddenSetOf(state);
  for (const b of turnBlocks(t)) {
    const hidden = held.get(b.path);
    const summary = summarized.get(b.path);
    const status = summary ? `summarized (${summary})` : hidden ? (hidden.reason === 'agent' ? 'hidden' : 'pruned') : 'visible';
    lines.push(`${b.path} · ${what(b.param, toolNames)}, ${size(b.param).toLocaleString('en-US')} chars · ${status}`);
  }
  const head = `Turn ${turn}: ${lines.length} block${lines.length === 1 ? '' : 's'}. recall one of these paths to read it back unchanged.`;
  return { type: 'text', text: [head, ...lines].join('\n') };
}

/**
 * What a turn consists of, in the terms a summary needs: the user's request,
 * the tool calls (grouped, with a compact argument), the failed results, and
 * the final answer. Shared by both summarizers.
 */
import type { ContentBlockParam } from '../providers/anthropic-types.js';
import { isSpace } from '../internal/chars.js';
import type { Turn } from '../timeline/types.js';

/** One tool, one argument, how many times. */
export interface CallGroup {
  readonly name: string;
  readonly arg: string;
  readonly count: number;
}

/** A failed tool result. */
export interface FailedCall {
  readonly name: string;
  readonly arg: string;
  readonly message: string;
}

/** The summary-relevant facts of a turn. */
export interface TurnDigest {
  readonly index: number;
  readonly request: string;
  readonly calls: readonly CallGroup[];
  readonly errors: readonly FailedCall[];
  /** The final answer's text; undefined while the turn has none. */
  readonly answer?: string;
}

/** Argument keys that say most about a call, in order of preference. */
const KEY_ARGS = ['file_path', 'path', 'filePath', 'file', 'pattern', 'command', 'cmd', 'query', 'url', 'name', 'id'];

/**
 * Whitespace collapsed and cut to `max` characters (with `…`): what
 * `text.replace(/\s+/g, ' ').trim()` cut to `max` gives, read only as far as
 * the cut needs (an error message or a request of 100k characters clipped to
 * 100 costs 100, not a pass over all of it).
 */
export function clip(text: string, max: number): string {
  const n = text.length;
  let out = '';
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  // The collapsed text, one run of non-space and its following space at a time, until it is known to be
  // longer than `max` (then only its first max - 1 characters matter).
  while (i < n && out.length <= max) {
    let j = i;
    const stop = i + (max + 1 - out.length);
    while (j < n && j < stop && !isSpace(text.charCodeAt(j))) j++;
    out += text.slice(i, j);
    if (j < n && j >= stop && !isSpace(text.charCodeAt(j))) break; // cut inside a run: longer than max
    let k = j;
    while (k < n && isSpace(text.charCodeAt(k))) k++;
    if (k < n && k > j) out += ' ';
    i = k;
  }
  if (out.length <= max) return out;
  return `${out.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** The one argument that identifies a call: its path, command, query… (first string-valued otherwise). */
export function keyArg(input: unknown, max = 60): string {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return '';
  const o = input as Record<string, unknown>;
  for (const k of KEY_ARGS) if (typeof o[k] === 'string' && o[k] !== '') return clip(o[k], max);
  for (const v of Object.values(o)) if (typeof v === 'string' && v !== '') return clip(v, max);
  return '';
}

/** The text of blocks (images and documents as a marker). */
export function blocksText(blocks: readonly ContentBlockParam[]): string {
  return blocks
    .map((b) => {
      switch (b.type) {
        case 'text':
          return b.text;
        case 'image':
          return '[image]';
        case 'document':
          return '[document]';
        default:
          return '';
      }
    })
    .filter((t) => t !== '')
    .join(' ');
}

/** The text of a tool result's content. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return blocksText(content as ContentBlockParam[]);
}

/** Digests a turn. */
export function digestTurn(turn: Turn): TurnDigest {
  const groups = new Map<string, { name: string; arg: string; count: number }>();
  const calls = new Map<string, { name: string; arg: string }>();
  const errors: FailedCall[] = [];
  for (const round of turn.rounds) {
    for (const b of round.response) {
      if (b.param.type !== 'tool_use') continue;
      const arg = keyArg(b.param.input);
      calls.set(b.param.id, { name: b.param.name, arg });
      const key = `${b.param.name}\u0000${arg}`;
      const g = groups.get(key);
      if (g) g.count++;
      else groups.set(key, { name: b.param.name, arg, count: 1 });
    }
    for (const b of round.results) {
      if (b.param.type !== 'tool_result' || !b.param.is_error) continue;
      const call = calls.get(b.param.tool_use_id) ?? { name: 'tool', arg: '' };
      errors.push({ ...call, message: resultText(b.param.content) });
    }
  }
  const last = turn.rounds.at(-1);
  const final = last && !last.response.some((b) => b.param.type === 'tool_use') ? blocksText(last.response.map((b) => b.param)) : undefined;
  const digest = { index: turn.index, request: blocksText(turn.user.map((b) => b.param)), calls: [...groups.values()], errors };
  return final === undefined || final === '' ? digest : { ...digest, answer: final };
}

/**
 * The replacement texts for hidden, pruned and compacted payloads. Kept short
 * and deterministic: they are part of the cached prefix once rendered.
 */
import type { ContentBlockParam } from '../providers/anthropic-types.js';
import { PathNotFoundError } from '../errors.js';
import { findBlock } from '../timeline/paths.js';
import type { BlockPath, HiddenRecord, HideReason, TimelineState } from '../timeline/types.js';

/** Characters of a payload (what the note reports as its size). */
export function payloadChars(param: ContentBlockParam): number {
  switch (param.type) {
    case 'text':
      return param.text.length;
    case 'tool_use':
      return JSON.stringify(param.input ?? {}).length;
    case 'tool_result': {
      const c = param.content;
      if (c === undefined) return 0;
      if (typeof c === 'string') return c.length;
      return c.reduce((n, part) => n + (part.type === 'text' ? part.text.length : JSON.stringify(part).length), 0);
    }
    default:
      return JSON.stringify(param).length;
  }
}

const VERB: Record<HideReason, string> = { agent: 'hidden', prune: 'pruned', economy: 'pruned', binding: 'pruned' };

/** `[pruned: Read result, 12,345 chars; recall("turns/3/rounds/2/results/toolu_01")]`: short, it is read by every later request. */
export function hiddenNote(path: BlockPath, what: string, chars: number, reason: HideReason, note?: string): string {
  const extra = note ? ` ${note};` : '';
  return `[${VERB[reason]}: ${what}, ${groupDigits(chars)} chars;${extra} recall("${path}")]`;
}

/**
 * `12,345`: a count with a comma every three digits, as `toLocaleString('en-US')` writes a non-negative
 * integer (anything else goes through it). That call costs ~2 µs through ICU, and a note is made for every
 * prune candidate the pass weighs, on every request (tens per request late in a long economy session).
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return n.toLocaleString('en-US');
  const s = String(n);
  if (s.length <= 3) return s;
  let out = s.slice(0, ((s.length - 1) % 3) + 1);
  for (let i = out.length; i < s.length; i += 3) out += `,${s.slice(i, i + 3)}`;
  return out;
}

/** Matches the start of a hidden note (`[pruned: …]`, `[hidden: …]`) or a compaction summary (`[Summary of …]`). */
export const hiddenNotePattern = /^\[(pruned|hidden): |^\[Summary of /;

/** What a block is, for notes. */
export function describe(param: ContentBlockParam, toolName?: string): string {
  switch (param.type) {
    case 'tool_result':
      return toolName ? `${toolName} result` : 'tool result';
    case 'tool_use':
      return `${param.name} input`;
    case 'text':
      return 'text';
    case 'image':
      return 'image';
    case 'document':
      return 'document';
    default:
      return param.type;
  }
}

/** The replacement param: keeps the block's type where the API pairs on it (tool_use, tool_result). */
export function replacementParam(param: ContentBlockParam, text: string): ContentBlockParam {
  switch (param.type) {
    case 'tool_result':
      return param.is_error
        ? { type: 'tool_result', tool_use_id: param.tool_use_id, content: text, is_error: true }
        : { type: 'tool_result', tool_use_id: param.tool_use_id, content: text };
    case 'tool_use':
      // The id and name stay so its tool_result remains a valid answer.
      return { type: 'tool_use', id: param.id, name: param.name, input: { hidden: text } };
    default:
      return { type: 'text', text };
  }
}

/** The one-time notice shown the first time anything is pruned. */
export const PRUNE_NOTICE =
  'Note from the runtime: to keep this conversation within budget, some older tool results and long payloads ' +
  'were replaced by short notes of the form [pruned: …] or [hidden: …]. Nothing is lost: each note names a path, ' +
  'and the recall tool returns the original content for that path, byte for byte.';

function toolNameFor(state: TimelineState, path: BlockPath, param: ContentBlockParam): string | undefined {
  if (param.type !== 'tool_result') return undefined;
  const call = findBlock(state, path.replace('/results/', '/calls/'));
  return call?.param.type === 'tool_use' ? call.param.name : undefined;
}

/** Builds the sticky record that replaces a payload by its note. */
export function hiddenRecord(state: TimelineState, path: BlockPath, reason: HideReason, note?: string): HiddenRecord {
  const block = findBlock(state, path);
  if (!block) throw new PathNotFoundError(path);
  const chars = payloadChars(block.param);
  return { path, reason, chars, note: hiddenNote(path, describe(block.param, toolNameFor(state, path, block.param)), chars, reason, note) };
}

/**
 * The `recall` tool: hidden content is one tool call away. Give the agent
 * {@link recallTool} with its other tools and answer its calls with
 * {@link handleRecall} (or {@link recallToolResult} for a whole tool_result).
 * The notes that replace forgotten payloads name the call to make:
 * `[pruned: Read result, 12,345 chars; recall("turns/3/rounds/2/results/toolu_01")]` ({@link hiddenNote}).
 */
import type { ContentBlockParam, PortableToolResultBlockParam, Tool, ToolResultBlockParam } from '../providers/anthropic-types.js';
import { freeze } from 'immer';
import { InvalidOptionError, PathNotFoundError } from '../errors.js';
import { withoutMarker } from '../internal/blocks.js';
import { recall } from '../render/hide-block.js';
import { hiddenNote } from '../render/notes.js';
import { parseTimelinePath } from '../timeline/paths.js';
import { turnIndexOf } from '../timeline/turn-index.js';
import type { BlockPath, TimelineState } from '../timeline/types.js';
import { MemoryPayloadStore } from './memory.js';
import { recordState } from './record.js';
import type { PayloadStore } from './types.js';

/** The input the model sends. */
export interface RecallInput {
  readonly path?: string;
  readonly query?: string;
}

/** Where {@link handleRecall} looks: the store first, then the state. At least one is needed. */
export interface RecallSources {
  readonly store?: PayloadStore;
  readonly state?: TimelineState;
  /** Most search hits listed (default 5). */
  readonly limit?: number;
}

/**
 * The content and error flag of the tool_result answering a recall call. Typed as every supported SDK version types a
 * tool result's content (text and images), so it goes into the caller's own history; a recalled block of a newer
 * kind (a document) is still sent as it is: only its static type is narrower.
 */
export interface RecallResult {
  readonly content: NonNullable<PortableToolResultBlockParam['content']>;
  readonly is_error: boolean;
  /** Where the answer came from (for logs and stats; not sent). */
  readonly source: 'store' | 'state' | 'search' | 'error';
}

/**
 * The tool definition (Anthropic `Tool` JSON) to add to the agent's tools.
 *
 * @example
 * const state = createTimeline({ model, instructions, tools: [...myTools, recallTool] });
 */
export const recallTool: Tool = freeze(
  {
    name: 'recall',
    description:
      'Read back content that was hidden, pruned or summarized out of this conversation to save space. ' +
      // The example is made by the function that writes the notes, so the two cannot drift apart.
      `Notes such as ${hiddenNote('turns/3/rounds/2/results/toolu_01', 'Read result', 12_345, 'prune')} ` +
      'name the path: pass it as `path` to get the original content exactly as it was. ' +
      'When you remember the topic but not the path, pass a few words as `query` to list matching paths with snippets.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The path named in a note, e.g. "turns/3/rounds/2/results/toolu_01".' },
        query: { type: 'string', description: 'Words to search the forgotten content for, e.g. "retry backoff config".' },
      },
    },
  },
  true,
);

function error(text: string): RecallResult {
  return { content: text, is_error: true, source: 'error' };
}

/** The tool_result content that gives the model the payload back, unchanged. */
export function payloadAsContent(payload: ContentBlockParam): NonNullable<ToolResultBlockParam['content']> {
  switch (payload.type) {
    case 'tool_result': {
      const c = payload.content;
      if (c === undefined || c === '' || (Array.isArray(c) && c.length === 0)) return '(the recalled tool result was empty)';
      return typeof c === 'string' ? c : c.map(withoutMarker);
    }
    case 'text':
      return payload.text === '' ? '(the recalled text was empty)' : payload.text;
    case 'thinking':
      return payload.thinking;
    case 'image':
    case 'document':
      return [withoutMarker(payload)];
    default:
      // tool_use and anything else: its JSON, so the input reads back exactly as the model produced it.
      return JSON.stringify(withoutMarker(payload));
  }
}

function lookup(path: BlockPath, sources: RecallSources): { payload: ContentBlockParam; source: 'store' | 'state' } | undefined {
  const stored = sources.store?.get(path);
  if (stored) return { payload: stored.payload, source: 'store' };
  const turn = turnIndexOf(path);
  if (turn !== undefined && !sources.state && sources.store) {
    // Only a store: the turn index lists what it kept of that turn.
    const kept = sources.store.byTurn(turn);
    if (kept.length === 0) return undefined;
    const text = [
      `Turn ${turn}: ${kept.length} stored block${kept.length === 1 ? '' : 's'}. recall one of these paths to read it back unchanged.`,
      ...kept,
    ].join('\n');
    return { payload: { type: 'text', text }, source: 'store' };
  }
  if (!sources.state) return undefined;
  try {
    return { payload: recall(sources.state, path), source: 'state' };
  } catch (e) {
    if (e instanceof PathNotFoundError) return undefined;
    throw e;
  }
}

function searchStore(sources: RecallSources): PayloadStore | undefined {
  if (sources.store) return sources.store;
  if (!sources.state) return undefined;
  // No store: search what the state itself has forgotten.
  const temp = new MemoryPayloadStore();
  recordState(temp, sources.state);
  return temp;
}

function search(query: string, sources: RecallSources): RecallResult {
  const store = searchStore(sources);
  if (!store) return error('recall is not connected to any store or state; nothing can be searched.');
  const hits = store.search(query, { limit: sources.limit ?? 5 });
  if (hits.length === 0) {
    return { content: `No forgotten content matches ${JSON.stringify(query)}. Try other words, or a path from a note.`, is_error: false, source: 'search' };
  }
  const lines = hits.map((h, i) => `${i + 1}. ${h.path} (score ${h.score}): ${h.snippet}`);
  const head = `${hits.length} match${hits.length === 1 ? '' : 'es'} for ${JSON.stringify(query)}, best first. Read one with recall({"path": "…"}):`;
  return { content: [head, ...lines].join('\n'), is_error: false, source: 'search' };
}

function unknownPath(path: string, sources: RecallSources): RecallResult {
  const turn = parseTimelinePath(path)?.turn;
  const near = turn !== undefined && sources.store ? sources.store.byTurn(turn).slice(0, 10) : [];
  const hint = near.length > 0 ? ` Stored paths of turn ${turn}: ${near.join(', ')}.` : '';
  return error(
    `No content is stored at path ${JSON.stringify(path)}.${hint} Paths look like "turns/3/rounds/2/results/toolu_01" (copy it from the note), or search with {"query": "a few words"}.`,
  );
}

/**
 * Answers a `recall` call: the original payload for `path` (from the store,
 * else from the state), or search hits for `query`. A `path` that is not found
 * falls back to `query` when both are given. Never throws for the model's bad
 * input: the model gets an `is_error` result that says what to send instead.
 *
 * @throws {InvalidOptionError} `sources` with neither `store` nor `state` (the caller's wiring)
 *
 * @example
 * if (call.name === 'recall') {
 *   const { content, is_error } = handleRecall(call.input, { store, state });
 *   results.push({ type: 'tool_result', tool_use_id: call.id, content, is_error });
 * }
 */
export function handleRecall(input: unknown, sources: RecallSources): RecallResult {
  // The caller's wiring, checked before the model's input: answering "nothing is stored at this path" would blame
  // the path (and the model) for a store or state that was never passed.
  const given = sources as Partial<RecallSources> | null | undefined;
  if (given === null || typeof given !== 'object' || (given.store === undefined && given.state === undefined)) {
    throw new InvalidOptionError('sources', 'recall needs { store } (a payload store), { state } (the timeline state), or both', { value: sources });
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return error('recall expects an object: {"path": "turns/3/rounds/2/results/toolu_01"} or {"query": "a few words"}.');
  }
  const { path, query } = input as Record<string, unknown>;
  if (path !== undefined && typeof path !== 'string') return error(`"path" must be a string, got ${JSON.stringify(path)}.`);
  if (query !== undefined && typeof query !== 'string') return error(`"query" must be a string, got ${JSON.stringify(query)}.`);
  const hasPath = typeof path === 'string' && path.trim() !== '';
  const hasQuery = typeof query === 'string' && query.trim() !== '';
  if (!hasPath && !hasQuery) return error('recall needs "path" (from a note) or "query" (a few words).');
  if (hasPath) {
    const found = lookup(path.trim(), sources);
    if (found) return { content: payloadAsContent(found.payload) as RecallResult['content'], is_error: false, source: found.source };
    if (!hasQuery) return unknownPath(path.trim(), sources);
  }
  return search(query as string, sources);
}

/**
 * A whole tool_result block answering a recall call.
 *
 * @example
 * const result = recallToolResult(call.id, call.input, { store });
 * state = appendToolResults(state, [result]);
 */
export function recallToolResult(toolUseId: string, input: unknown, sources: RecallSources): PortableToolResultBlockParam {
  const { content, is_error } = handleRecall(input, sources);
  return is_error ? { type: 'tool_result', tool_use_id: toolUseId, content, is_error } : { type: 'tool_result', tool_use_id: toolUseId, content };
}

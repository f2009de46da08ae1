/** Small builders for timelines in tests: real edits, deterministic content. */
import type { ContentBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';

export const TOOLS: Tool[] = [
  {
    name: 'Read',
    description: 'Reads a file from the workspace and returns its content with line numbers.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'Edit',
    description: 'Replaces an exact string in a file.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
      required: ['path', 'old', 'new'],
    },
  },
];

export const INSTRUCTIONS = [
  `You are a careful coding agent. ${'Follow the repository conventions, run the tests, and explain what you changed. '.repeat(60)}`,
  'Domain: a TypeScript monorepo. Prefer small, reviewed changes.',
];

export function newSession(model = 'claude-sonnet-4-6'): TimelineState {
  return createTimeline({ model, instructions: INSTRUCTIONS, tools: TOOLS, skills: [{ name: 'git', description: 'commit and branch helpers' }] });
}

let seq = 0;

/**
 * Restarts the tool-use numbering. test/helpers/setup.ts calls it before every test file: files share their
 * worker's modules (`isolate: false`), and without it a file's ids, paths and token counts would depend on
 * how many responses the files that ran before it in the same worker built.
 */
export function resetToolIds(): void {
  seq = 0;
}

/** A tool-using response: optional thinking, then `calls` parallel Read calls. */
export function toolResponse(calls = 1, thinking = true): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  if (thinking) out.push({ type: 'thinking', thinking: `Let me look at the files (${seq}).`, signature: `sig-${seq}` });
  for (let i = 0; i < calls; i++) {
    seq++;
    out.push({ type: 'tool_use', id: `toolu_${String(seq).padStart(4, '0')}`, name: 'Read', input: { path: `src/file-${seq}.ts` } });
  }
  return out;
}

const WORDS = [
  'const',
  'value',
  'return',
  'export',
  'function',
  'await',
  'cache',
  'render',
  'stream',
  'block',
  'turn',
  'round',
  'point',
  'token',
  'user',
  'tool',
  'result',
  'path',
  'state',
  'error',
];

/** Deterministic source-like text of about `size` characters (varied, so it tokenizes like real code). */
export function text(seed: string, size: number): string {
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  let out = `// ${seed}\n`;
  while (out.length < size) {
    h = Math.imul(h ^ (h >>> 13), 1274126177) >>> 0;
    out += `${WORDS[h % WORDS.length]}_${(h >>> 8) % 997}${h % 7 === 0 ? ';\n' : ' '}`;
  }
  return out.slice(0, size);
}

/** Answers every open tool_use of the last round with deterministic content. */
export function answerAll(state: TimelineState, size = 300): TimelineState {
  const round = state.turns.at(-1)!.rounds.at(-1)!;
  const results = round.open.map((id) => ({
    type: 'tool_result' as const,
    tool_use_id: id,
    content: text(id, size),
  }));
  return appendToolResults(state, results);
}

/** Appends one complete tool round to the current turn. */
export function toolRound(state: TimelineState, calls = 1, size = 300): TimelineState {
  return answerAll(appendResponse(state, toolResponse(calls)), size);
}

/** Appends the final answer of the current turn. */
export function finalAnswer(state: TimelineState, text = 'Done: the test passes now.'): TimelineState {
  return appendResponse(state, [{ type: 'text', text }]);
}

/** A session of `turns` turns with the given number of tool rounds each (the last turn left open, without its final answer). */
export function session(roundsPerTurn: readonly number[], model?: string): TimelineState {
  let s = newSession(model);
  roundsPerTurn.forEach((rounds, t) => {
    s = startTurn(s, `Task ${t + 1}: please fix issue #${100 + t}.`);
    for (let r = 0; r < rounds; r++) s = toolRound(s, 1 + (r % 3));
    if (t < roundsPerTurn.length - 1) s = finalAnswer(s);
  });
  return s;
}

/** Whether a value and everything it holds is frozen (a state handed out must be). */
export function deepFrozen(x: unknown): boolean {
  if (x === null || typeof x !== 'object') return true;
  if (!Object.isFrozen(x)) return false;
  for (const v of Object.values(x)) if (!deepFrozen(v)) return false;
  return true;
}

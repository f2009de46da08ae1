/** Sessions for the summarizer tests, built with the real edits. */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { newSession } from '../helpers/build.js';

let id = 0;
const use = (name: string, input: Record<string, unknown>): ContentBlockParam => ({ type: 'tool_use', id: `toolu_s${++id}`, name, input });

/** One turn: three reads of src/a.ts, an edit of src/b.ts, a failing test run, then the answer. */
export function workTurn(state: TimelineState, n: number): TimelineState {
  let s = startTurn(state, `Request ${n}: the retry test fails on CI with a timeout. ${'Please look at the backoff settings and fix them. '.repeat(8)}`);
  for (let r = 0; r < 3; r++) {
    const call = use('Read', { path: 'src/a.ts', offset: r * 100 });
    s = appendResponse(s, [{ type: 'thinking', thinking: 'Reading more.', signature: 'sig' }, call]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: (call as { id: string }).id, content: `line ${r}: export const backoff = ${r};` }]);
  }
  const edit = use('Edit', { path: 'src/b.ts', old: 'a', new: 'b' });
  const bash = use('Bash', { command: 'npm test -- retry' });
  s = appendResponse(s, [edit, bash]);
  s = appendToolResults(s, [
    { type: 'tool_result', tool_use_id: (edit as { id: string }).id, content: 'ok' },
    {
      type: 'tool_result',
      tool_use_id: (bash as { id: string }).id,
      content: 'FAIL retry.test.ts: expected 500 got 250\n    at backoff (src/b.ts:3)',
      is_error: true,
    },
  ]);
  return appendResponse(s, [{ type: 'text', text: `Turn ${n} done: the backoff is now 500 ms and the retry test passes. ${'Details follow. '.repeat(40)}` }]);
}

/** A session of `n` finished work turns. */
export function workSession(n: number): TimelineState {
  let s = newSession();
  for (let t = 1; t <= n; t++) s = workTurn(s, t);
  return s;
}

/**
 * The generated sessions the economy tests replay (economy-incremental, economy-branches): one open turn of
 * `requests` rounds, or `requests` requests over many turns, with tails, the agent's hides, re-reads and re-runs
 * as real agents do, no huge payloads.
 */
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { type GenerateOptions, generateTrace } from '../../src/synthetic/generate.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { applyEvent } from './trace-events.js';

export function economySession(seed: string, model: string, shape: 'single' | 'multi', requests: number, more: Partial<GenerateOptions> = {}): TraceEvent[] {
  return generateTrace({
    seed: `${seed}-${shape}-${model}`,
    profile: 'coding',
    requests,
    ...(shape === 'single' ? { rounds: { median: requests, min: requests, max: requests } } : {}),
    tail: true,
    hides: true,
    revisits: true,
    hugeRate: 0,
    model,
    ...more,
  });
}

/**
 * Replays `events` on one line: each request through `each(state, now)`, which renders it (the response is
 * appended to the state of the render it returns); every other event applied as the trace has it.
 */
export function replayRequests(
  events: readonly TraceEvent[],
  model: string,
  options: RenderOptions,
  each: (state: TimelineState, now: number) => Rendered,
): void {
  const seen = new Set<string>();
  let state: TimelineState | undefined;
  let now = 0;
  for (const e of events) {
    if (e.type === 'assistant') {
      state = appendResponse(each(state!, now).state, e.content as never, e.at);
      now = e.at;
      continue;
    }
    if ('at' in e && typeof e.at === 'number') now = e.at;
    state = applyEvent(state, e, { model, options, now, shift: 0, seen });
  }
}

/** One line of a session replayed on several (branches, forks, rewinds): its state before its next event, where it is in the events, its clock. */
export interface SessionLine {
  state: TimelineState | undefined;
  next: number;
  now: number;
  /** Text this line adds to every tool result message (its rounds differ from the other lines'). */
  extra?: string;
}

/** The session's events and what applying them needs, shared by its lines. */
export interface SessionRun {
  readonly events: readonly TraceEvent[];
  readonly model: string;
  readonly options: RenderOptions;
  /** Kinds of what happened (events applied, decisions made), for the tests' coverage checks. */
  readonly kinds: Set<string>;
}

/**
 * Moves a line on by one request: its events up to the next response applied, the request answered by
 * `answer(state, now)` (the response is appended to the state of the render it returns; `line.next` is still the
 * response's event then); false when its events are spent.
 */
export function stepLine(run: SessionRun, line: SessionLine, answer: (state: TimelineState, now: number) => Rendered): boolean {
  for (; line.next < run.events.length; line.next++) {
    const e = run.events[line.next]!;
    if (e.type === 'assistant') {
      const r = answer(line.state!, line.now);
      line.state = appendResponse(r.state, e.content as never, e.at);
      line.now = e.at;
      line.next++;
      return true;
    }
    if ('at' in e && typeof e.at === 'number') line.now = e.at;
    const event = line.extra && e.type === 'tool_results' ? { ...e, content: [...e.content, { type: 'text' as const, text: line.extra }] } : e;
    line.state = applyEvent(line.state, event, { model: run.model, options: run.options, now: line.now, shift: 0, seen: run.kinds });
  }
  return false;
}

/** Shape measurements of traces, shared by the generator and fixture tests. */
import type { TraceEvent } from '../../src/trace/index.js';

export interface TraceShape {
  readonly requests: number;
  readonly turns: number;
  readonly roundsPerTurn: number[];
  readonly resultSizes: number[];
  /** Time between consecutive requests (ms); a request is sent at the `at` of the event before its assistant event. */
  readonly requestGaps: number[];
  readonly maxParallel: number;
  readonly thinking: number;
  readonly redacted: number;
  readonly errors: number;
  readonly withDuration: number;
  readonly tails: string[];
  readonly hides: number;
}

export function shape(events: readonly TraceEvent[]): TraceShape {
  const roundsPerTurn: number[] = [];
  const resultSizes: number[] = [];
  const requestGaps: number[] = [];
  const tails: string[] = [];
  let requests = 0;
  let maxParallel = 0;
  let thinking = 0;
  let redacted = 0;
  let errors = 0;
  let withDuration = 0;
  let hides = 0;
  let lastAt: number | undefined;
  let lastRequest: number | undefined;
  for (const e of events) {
    if (e.type === 'user') roundsPerTurn.push(0);
    if (e.type === 'assistant') {
      requests += 1;
      roundsPerTurn[roundsPerTurn.length - 1]! += 1;
      if (lastAt !== undefined) {
        if (lastRequest !== undefined) requestGaps.push(lastAt - lastRequest);
        lastRequest = lastAt;
      }
      maxParallel = Math.max(maxParallel, e.content.filter((b) => b.type === 'tool_use').length);
      thinking += e.content.filter((b) => b.type === 'thinking' && b.signature.length > 0).length;
      redacted += e.content.filter((b) => b.type === 'redacted_thinking').length;
    }
    if (e.type === 'tool_results') {
      for (const b of e.content) {
        if (b.type !== 'tool_result') continue;
        resultSizes.push(typeof b.content === 'string' ? b.content.length : JSON.stringify(b.content ?? '').length);
        if (b.is_error === true) errors += 1;
        if (typeof b.duration_ms === 'number') withDuration += 1;
      }
    }
    if (e.type === 'tail') tails.push(JSON.stringify(e.content));
    if (e.type === 'hide') hides += 1;
    if ('at' in e && e.at !== undefined) lastAt = e.at;
  }
  return {
    requests,
    turns: roundsPerTurn.length,
    roundsPerTurn,
    resultSizes,
    requestGaps,
    maxParallel,
    thinking,
    redacted,
    errors,
    withDuration,
    tails,
    hides,
  };
}

export function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(q * (s.length - 1))] ?? Number.NaN;
}

/**
 * appendRound (a response and the tool results that answer it, as one edit) ≡ appendResponse then
 * appendToolResults: the same state, byte for byte and frozen alike, the same errors, and side tables that
 * go on the same way (the tool_use index still catches a repeated id; sharedRounds still finds the rounds
 * kept). Two chains replay each session, one with the two appends and one with appendRound wherever a
 * response is followed by its results, rendering before every response as a loop does; they are compared
 * after every step. On every fixture and on generated sessions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { render } from '../../src/render/render.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { appendResponse, appendRound, appendToolResults, createTimeline, setEnvelope, setTail, sharedRounds, startTurn } from '../../src/timeline/edit.js';
import type { Round, TimelineState } from '../../src/timeline/types.js';
import { parseTrace } from '../../src/trace/reader.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { TimelineError } from '../../src/errors.js';
import { deepFrozen } from '../helpers/build.js';

const FIXTURES = readdirSync('fixtures').filter((f) => f.endsWith('.jsonl'));

type Results = { results: ToolResultBlockParam[]; texts: TextBlockParam[] };

function resultsOf(e: TraceEvent & { type: 'tool_results' }): Results {
  const results = e.content
    .filter((b) => b.type === 'tool_result')
    .map((b) => {
      const { duration_ms: _d, ...rest } = b as ToolResultBlockParam & { duration_ms?: number };
      return rest as ToolResultBlockParam;
    });
  return { results, texts: e.content.filter((b) => b.type === 'text') as TextBlockParam[] };
}

/** What an append throws (its message), or undefined. */
function thrown(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(TimelineError);
    return (err as Error).message;
  }
}

/** The turns of a state as the JSON the render reads (lastRender left out: it is the previous render's, equal on both chains by construction). */
function turnsJson(s: TimelineState): string {
  return JSON.stringify(s.turns);
}

/** Replays the events on both chains; returns how many rounds went through appendRound. */
function replayBoth(events: readonly TraceEvent[]): number {
  let seq: TimelineState | undefined;
  let fused: TimelineState | undefined;
  let lastAt = 0;
  let rounds = 0;
  const evs = events.filter((e) => e.type !== 'hide');
  for (let i = 0; i < evs.length; i++) {
    const e = evs[i]!;
    if (e.type === 'envelope') {
      const input = {
        instructions: e.instructions,
        tools: e.tools,
        ...(e.skills ? { skills: e.skills } : {}),
        model: e.model ?? seq?.model ?? 'claude-sonnet-4-6',
      };
      seq = seq ? setEnvelope(seq, input) : createTimeline(input);
      fused = fused ? setEnvelope(fused, input) : createTimeline(input);
    } else if (e.type === 'user') {
      seq = startTurn(seq!, e.content, e.at);
      fused = startTurn(fused!, e.content, e.at);
    } else if (e.type === 'tail') {
      seq = setTail(seq!, e.content);
      fused = setTail(fused!, e.content);
    } else if (e.type === 'tool_results') {
      const { results, texts } = resultsOf(e);
      seq = appendToolResults(seq!, results, texts, e.at);
      fused = appendToolResults(fused!, results, texts, e.at);
    } else if (e.type === 'assistant') {
      seq = render(seq!, { now: lastAt }).state;
      fused = render(fused!, { now: lastAt }).state;
      const next = evs[i + 1];
      if (next?.type === 'tool_results') {
        const { results, texts } = resultsOf(next);
        const before = fused;
        seq = appendToolResults(appendResponse(seq, e.content, e.at), results, texts, next.at);
        fused = appendRound(fused, e.content, results, texts, e.at, next.at);
        rounds++;
        i++;
        lastAt = next.at;
        // The rounds records: the rounds kept from before are found (as by comparing them one by one).
        const was = before.turns.at(-1)!.rounds;
        const now = fused.turns.at(-1)!.rounds;
        expect(sharedRounds(now, was, was.length)).toBe(was.length);
        expect(deepFrozen(fused.turns.at(-1))).toBe(true);
        expect(Object.isFrozen(fused) && Object.isFrozen(fused.turns)).toBe(true);
        // The tool_use index: an id of this round again is caught, on both chains alike.
        const id = (e.content.find((b) => b.type === 'tool_use') as { id: string } | undefined)?.id;
        if (id !== undefined) {
          const again = [{ type: 'tool_use' as const, id, name: 'Read', input: {} }];
          const a = thrown(() => appendResponse(seq!, again));
          expect(a).toMatch(/duplicate tool_use id|unanswered|ended with round/);
          expect(thrown(() => appendResponse(fused!, again))).toBe(a);
        }
      } else {
        seq = appendResponse(seq, e.content, e.at);
        fused = appendResponse(fused, e.content, e.at);
      }
    }
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
    expect(turnsJson(fused!)).toBe(turnsJson(seq!));
  }
  // The last state renders the same request.
  expect(JSON.stringify(render(fused!, { now: lastAt }).stream)).toBe(JSON.stringify(render(seq!, { now: lastAt }).stream));
  return rounds;
}

describe('appendRound ≡ appendResponse + appendToolResults', () => {
  for (const file of FIXTURES) {
    it(`fixture ${file}`, () => {
      const rounds = replayBoth(parseTrace(readFileSync(`fixtures/${file}`, 'utf8'), file));
      expect(rounds).toBeGreaterThan(0);
    });
  }

  const profiles = ['coding', 'research', 'fanout', 'volatile-tail', 'idle', 'mixed'] as const;
  for (const profile of profiles) {
    it(`generated ${profile} sessions`, () => {
      for (let seed = 1; seed <= 4; seed++) {
        const rounds = replayBoth(generateTrace({ seed: `append-round-${profile}-${seed}`, profile, requests: 40 }));
        expect(rounds).toBeGreaterThan(0);
      }
    });
  }

  it('refuses what the two appends refuse, with the same error, and changes nothing', () => {
    let s = startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'] }), 'go');
    const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: { path: id } });
    const result = (id: string, content = 'ok'): ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: id, content });
    s = appendToolResults(appendResponse(s, [call('a')]), [result('a')]);
    const cases: [string, Parameters<typeof appendRound>[1], ToolResultBlockParam[], string[]][] = [
      ['a result for an unknown call', [call('b')], [result('zzz')], []],
      ['a call answered twice', [call('b')], [result('b'), result('b')], []],
      ['a repeated tool_use id', [call('a')], [result('a')], []],
      ['a repeat within the response', [call('b'), call('b')], [result('b')], []],
      ['nothing to append', [call('b')], [], ['  ']],
      ['an empty response', [{ type: 'text', text: ' ' }], [result('b')], []],
      ['results that are not an array', [call('b')], 'nope' as never, []],
    ];
    for (const [what, response, results, injected] of cases) {
      const want = thrown(() => appendToolResults(appendResponse(s, response), results, injected));
      expect(want, what).toBeDefined();
      expect(
        thrown(() => appendRound(s, response, results, injected)),
        what,
      ).toBe(want);
      // Nothing changed: the index still holds the ids it held (a repeat of 'a' is caught, a new 'b' is not).
      expect(thrown(() => appendRound(s, [call('a')], [result('a')]))).toMatch(/duplicate tool_use id "a"/);
      expect(turnsJson(appendRound(s, [call('b')], [result('b')]))).toBe(turnsJson(appendToolResults(appendResponse(s, [call('b')]), [result('b')])));
    }
    // No open turn, and a turn that ended: refused before the results are looked at.
    const empty = createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'] });
    expect(thrown(() => appendRound(empty, [call('c')], [result('c')]))).toBe(thrown(() => appendResponse(empty, [call('c')])));
    const ended = appendResponse(s, [{ type: 'text', text: 'done' }]);
    expect(thrown(() => appendRound(ended, [call('c')], [result('c')]))).toBe(thrown(() => appendResponse(ended, [call('c')])));
  });

  it('stamps the round with the response time, else the results time (as appendToolResults does)', () => {
    const s = startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'] }), 'go');
    const call = [{ type: 'tool_use' as const, id: 't1', name: 'Read', input: {} }];
    const res: ToolResultBlockParam[] = [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }];
    const round = (x: TimelineState): Round => x.turns.at(-1)!.rounds.at(-1)!;
    expect(round(appendRound(s, call, res, [], 5, 9)).at).toBe(5);
    expect(round(appendRound(s, call, res, [], undefined, 9)).at).toBe(9);
    expect(round(appendRound(s, call, res)).at).toBeUndefined();
    expect(turnsJson(appendRound(s, call, res, ['note'], undefined, 9))).toBe(turnsJson(appendToolResults(appendResponse(s, call), res, ['note'], 9)));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { extractiveSummarizer, prepareExtractive } from '../../src/summarize/extractive.js';
import type { SummaryInput } from '../../src/summarize/types.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { Turn } from '../../src/timeline/types.js';
import { cl100kCount } from '../../src/tokens/bpe.js';
import { type TokenCounter, tiktokenCounter } from '../../src/tokens/counter.js';
import { newSession } from '../helpers/build.js';
import { workSession } from './turns.js';

const session = workSession(6);
const input = (maxTokens: number, from = 1, to = 6): SummaryInput => ({ fromTurn: from, toTurn: to, turns: session.turns.slice(from - 1, to), maxTokens });
const counter = tiktokenCounter();

describe('extractiveSummarizer', () => {
  it('keeps per turn the request, grouped tool calls with their key argument, errors and the answer', () => {
    const out = extractiveSummarizer().summarize(input(5_000, 1, 1));
    expect(out.by).toBe('extractive');
    expect(out.text).toMatchInlineSnapshot(`
      "[Summary of turn 1 (extractive). The originals stay readable: recall("turns/1/user/0") and the paths in notes.]
      Turn 1: Request 1: the retry test fails on CI with a timeout. Please look at the backoff settings and fix them. Please look at the backoff settings and fix them. Please look at the backoff settings and fix t…
        Tools: Read src/a.ts ×3, Edit src/b.ts, Bash npm test -- retry
        Errors: Bash npm test -- retry: FAIL retry.test.ts: expected 500 got 250 at backoff (src/b.ts:3)
        Answer: Turn 1 done: the backoff is now 500 ms and the retry test passes. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details follow. Details f…"
    `);
  });

  it('returns a plain value, not a promise, so the synchronous render can use it', () => {
    const out = extractiveSummarizer().summarize(input(2_000));
    expect(out).not.toBeInstanceOf(Promise);
    expect(typeof out.text).toBe('string');
  });

  it('writes the same bytes for the same input, from any instance', () => {
    const a = extractiveSummarizer().summarize(input(700)).text;
    const b = extractiveSummarizer().summarize(input(700)).text;
    const c = extractiveSummarizer().summarize(structuredClone(input(700))).text;
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it('stays under maxTokens for any budget', () => {
    const summarizer = extractiveSummarizer();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 5 }), (max, from, span) => {
        const to = Math.min(6, from + span);
        const { text } = summarizer.summarize(input(max, from, to));
        expect(counter.count(text)).toBeLessThanOrEqual(max);
      }),
      { numRuns: 60 },
    );
  });

  it('takes detail from the oldest turns first', () => {
    const full = extractiveSummarizer().summarize(input(100_000));
    const budget = Math.floor(counter.count(full.text) * 0.7);
    const { text } = extractiveSummarizer().summarize(input(budget));
    // The newest turn keeps its full detail; the oldest lost the arguments of its calls.
    expect(text).toContain('Turn 6: Request 6');
    expect(text.slice(text.indexOf('Turn 6:'))).toContain('Read src/a.ts ×3');
    const turn1 = text.slice(text.indexOf('Turn 1:'), text.indexOf('Turn 2:'));
    expect(turn1).toContain('Tools: Read ×3, Edit, Bash');
    expect(turn1).toContain('Errors: 1');
  });

  it('omits the oldest turns entirely before cutting, and cuts when even that is too long', () => {
    const { text } = extractiveSummarizer().summarize(input(90));
    expect(text).toMatch(/Turns 1–\d: details omitted\./);
    expect(text).toContain('Turn 6: Request 6');
    const tiny = extractiveSummarizer().summarize(input(8)).text;
    expect(tiny.endsWith('…')).toBe(true);
    expect(counter.count(tiny)).toBeLessThanOrEqual(8);
  });

  it('says "(none)" for a turn without a final answer', () => {
    const open = { ...session.turns[0]!, rounds: session.turns[0]!.rounds.slice(0, 2) };
    expect(extractiveSummarizer().summarize({ fromTurn: 1, toTurn: 1, turns: [open], maxTokens: 500 }).text).toContain('Answer: (none)');
  });

  it('rejects a budget that is not a positive integer', () => {
    expect(() => extractiveSummarizer().summarize(input(0))).toThrow(InvalidOptionError);
    expect(() => extractiveSummarizer({ requestChars: -1 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: requestChars: must be a positive integer, got -1]`,
    );
  });
});

describe('extractiveSummarizer with the default counter (whole-text counts as the sum of its parts)', () => {
  /** Texts whose ends exercise the pre-tokenizer at the parts' joins: punctuation, spaces, CJK, digits, line breaks, none. */
  const ENDS = ['', '.', '…', ' ', '  \n', '\n\n', '中文', '42', '!?', ')\t', '\u00a0', '😀', "'s"];
  const messy = (n: number, k: number): string =>
    `${ENDS[k % ENDS.length]}Request ${n}${ENDS[(k + 3) % ENDS.length]} ${'word '.repeat(k % 5)}${ENDS[(k + 7) % ENDS.length]}`;
  function messyTurns(count: number, seed: number): Turn[] {
    let s = newSession();
    for (let t = 1; t <= count; t++) {
      const k = seed * 31 + t * 7;
      s = startTurn(s, messy(t, k));
      const call = { type: 'tool_use' as const, id: `toolu_m${seed}_${t}`, name: 'Bash', input: { command: `run ${ENDS[k % ENDS.length]}` } };
      s = appendResponse(s, [call]);
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: call.id, content: `${messy(t, k + 1)} failed`, ...(k % 2 ? { is_error: true } : {}) }]);
      s = appendResponse(s, [{ type: 'text', text: messy(t, k + 2) }]);
    }
    return [...s.turns];
  }

  it('writes the bytes a counter of the whole text writes, for any budget', () => {
    // The same counts through another function: the summarizer then counts every composed text whole.
    const whole: TokenCounter = { name: 'whole', count: (t) => cl100kCount(t) };
    // Every budget from 1 to past the full text on short sessions: each place where the sweep stops or the cut
    // begins is met at the budget one below and one above it.
    let cuts = 0;
    for (let seed = 0; seed < 6; seed++) {
      for (let count = 1; count <= 3; count++) {
        const turns = messyTurns(count, seed);
        for (let max = 1; max <= 60 * count; max++) {
          const at: SummaryInput = { fromTurn: 1, toTurn: count, turns, maxTokens: max };
          const fast = extractiveSummarizer().summarize(at).text;
          expect(fast).toBe(extractiveSummarizer({ counter: whole }).summarize(at).text);
          expect(cl100kCount(fast)).toBeLessThanOrEqual(max);
          if (fast.endsWith('…') && !fast.includes('Turn')) cuts++;
        }
      }
    }
    expect(cuts).toBeGreaterThan(0);
    // Longer sessions, any budget (fixed seed).
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_500 }), fc.integer({ min: 4, max: 12 }), fc.integer({ min: 0, max: 50 }), (max, count, seed) => {
        const turns = messyTurns(count, seed);
        const at: SummaryInput = { fromTurn: 1, toTurn: count, turns, maxTokens: max };
        expect(extractiveSummarizer().summarize(at).text).toBe(extractiveSummarizer({ counter: whole }).summarize(at).text);
      }),
      { numRuns: 60, seed: 14 },
    );
    // Sections prepared ahead for the default options (as the compact pass does) give the same bytes, with the
    // default options and with others (prepared sections of one are never read for another).
    for (let seed = 0; seed < 4; seed++) {
      const turns = messyTurns(9, 100 + seed);
      prepareExtractive([...turns, turns.at(-1)!]);
      for (const max of [40, 150, 400, 5_000]) {
        const at: SummaryInput = { fromTurn: 1, toTurn: 9, turns, maxTokens: max };
        expect(extractiveSummarizer().summarize(at).text).toBe(extractiveSummarizer({ counter: whole }).summarize(at).text);
        const other = { requestChars: 40, answerChars: 20, maxCalls: 1 };
        expect(extractiveSummarizer(other).summarize(at).text).toBe(extractiveSummarizer({ ...other, counter: whole }).summarize(at).text);
      }
    }
    // And on the work session at every budget that omits, briefs, or cuts.
    for (const max of [8, 30, 90, 200, 400, 700, 1_000, 2_000]) {
      expect(extractiveSummarizer().summarize(input(max)).text).toBe(extractiveSummarizer({ counter: whole }).summarize(input(max)).text);
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { extractiveSummarizer } from '../../src/summarize/extractive.js';
import type { SummaryInput } from '../../src/summarize/types.js';
import { tiktokenCounter } from '../../src/tokens/counter.js';
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

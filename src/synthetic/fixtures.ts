/**
 * The committed fixture set: each file in `fixtures/` is exactly
 * `formatTrace(generateTrace(options))` for the options recorded here, so the
 * set can be regenerated (`npx tsx src/synthetic/generate-fixtures.ts`) and a test
 * checks that every committed file still matches its recipe byte for byte.
 */
import type { GenerateOptions } from './generate.js';

/** One committed fixture: its file name (in `fixtures/`), what it exercises, and its recipe. */
export interface FixtureSpec {
  readonly file: string;
  readonly purpose: string;
  readonly options: GenerateOptions;
}

export const FIXTURE_SPECS: readonly FixtureSpec[] = [
  {
    file: 'demo.jsonl',
    purpose: 'a small 3-turn session (3–9 rounds per turn) with thinking, parallel calls and a live-view tail, for `npm start`',
    options: {
      seed: 'demo',
      profile: 'volatile-tail',
      turns: 3,
      rounds: { median: 6, min: 3, max: 9 },
      fanout: { rounds: 1, min: 3, max: 4 },
      thinkingRate: 0.8,
      revisits: true,
    },
  },
  {
    file: 'coding.jsonl',
    purpose: 'a coding agent: many re-reads of the same files with edits between them, tests, hides of superseded reads',
    options: { seed: 'coding-6', profile: 'coding', requests: 44, revisits: true },
  },
  {
    file: 'research.jsonl',
    purpose: 'a research agent: searches and fetched pages, one raw page of several hundred thousand characters',
    options: { seed: 'research-1', profile: 'research', requests: 32, revisits: true },
  },
  {
    file: 'long-idle.jsonl',
    purpose: 'a long session (186 requests) with idle gaps over 5 minutes and over 1 hour between turns',
    options: { seed: 'long-idle-1', profile: 'idle', requests: 186, revisits: true },
  },
  {
    file: 'fanout.jsonl',
    purpose: 'a round with 20–30 parallel tool calls',
    options: { seed: 'fanout-1', profile: 'fanout', requests: 26, revisits: true },
  },
  {
    file: 'volatile-tail.jsonl',
    purpose: 'a live view (request number, time, budget, workspace) in a tail event before every request',
    options: { seed: 'volatile-tail-1', profile: 'volatile-tail', requests: 34, revisits: true },
  },
  {
    file: 'compaction.jsonl',
    purpose: 'claude-opus-4-5 (200k window) with ~1M characters of visible input: crosses 90% of the window, so compaction must run',
    options: { seed: 'compaction-7', profile: 'compaction', revisits: true },
  },
  { file: 'mixed-1.jsonl', purpose: 'a realistic session with default shapes', options: { seed: 'mixed-1', profile: 'mixed', revisits: true } },
  { file: 'mixed-2.jsonl', purpose: 'a realistic session with default shapes', options: { seed: 'mixed-6', profile: 'mixed', revisits: true } },
  {
    file: 'mixed-3.jsonl',
    purpose: 'a realistic session with default shapes and one envelope change mid-session',
    options: { seed: 'mixed-8', profile: 'mixed', envelopeChange: true, revisits: true },
  },
  { file: 'mixed-4.jsonl', purpose: 'a realistic session with default shapes', options: { seed: 'mixed-2', profile: 'mixed', revisits: true } },
  {
    file: 'revisits.jsonl',
    purpose:
      'a coding agent that goes back to what it read: Edits of files read a few rounds earlier (median 3 requests), tests re-run after each fix (prices forced recalls)',
    options: { seed: 'revisits-1', profile: 'coding', requests: 60, revisits: true },
  },
];

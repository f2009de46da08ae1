/**
 * Memory benchmark: heap retained per live session, per MB of timeline text.
 *
 * Builds N sessions of the same long trace the way a live agent would (render
 * before every model call, keep the rendered state), each from its own parse
 * of the trace so no two sessions share a string, forces a full GC, and
 * divides the heap growth by N and by the MB of payload text in a session's
 * timeline. Baseline, measured in the same run: the same texts, copied, held
 * in a plain array of strings (what the bare transcript costs).
 *
 * Needs a forced GC: `--expose-gc` when given, otherwise exposed at run time.
 *
 * Run: `npm run bench -- memory` or `npx tsx test/bench/memory.ts`.
 */
import { render } from '../../src/render/render.js';
import { turnBlocks } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { blockText, BlockTokenCache } from '../../src/tokens/counter.js';
import { formatTrace } from '../../src/trace/format.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { consume, drive, fixtureTexts, forceGc, formatRows, isMain, parseFixture, sig, type Row } from './util.js';

const SESSIONS = 20;

/** The payload texts of a session's timeline (what the model reads), one string per block. */
function timelineTexts(state: TimelineState): string[] {
  const out: string[] = [];
  for (const turn of state.turns) for (const b of turnBlocks(turn)) out.push(blockText(b.param).text);
  return out;
}

function heap(): number {
  forceGc();
  return process.memoryUsage().heapUsed;
}

/** A fresh, flat copy of a string (no slice or cons pointing into another session's text). */
function copy(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** A session as a live agent holds it after its last request: the state, with the last render's memory. */
function build(text: string, name: string, tokens: BlockTokenCache): TimelineState {
  return drive(parseFixture(text, name), (s, now) => render(s, { now, tokens }));
}

function traceText(): { name: string; text: string } {
  const fixture = fixtureTexts().find((f) => f.name === 'long-idle.jsonl');
  if (fixture) return { name: `fixtures/${fixture.name}`, text: fixture.text };
  return { name: 'generated idle trace (186 requests)', text: formatTrace(generateTrace({ seed: 'long-idle-1', profile: 'idle', requests: 186 })) };
}

export default async function bench(): Promise<Row[]> {
  const { name, text } = traceText();
  // Warm-up: load tiktoken's encoder, compile the passes, fill module-level caches.
  const tokens = new BlockTokenCache();
  consume(build(text, name, tokens));
  consume(undefined);

  const h0 = heap();
  const sessions: TimelineState[] = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(build(text, name, tokens));
  const h1 = heap();
  const texts = timelineTexts(sessions[0]!);
  const chars = texts.reduce((n, t) => n + t.length, 0);
  const blocks = texts.length;
  const perSession = (h1 - h0) / SESSIONS;
  consume(sessions);
  sessions.length = 0;
  consume(undefined);

  const h2 = heap();
  const arrays: string[][] = [];
  for (let i = 0; i < SESSIONS; i++) arrays.push(texts.map(copy));
  const h3 = heap();
  const perArray = (h3 - h2) / SESSIONS;
  consume(arrays);

  const mb = chars / 1e6;
  const perMb = perSession / mb;
  const basePerMb = perArray / mb;
  return [
    { name: 'memory: trace', value: name, baseline: `${SESSIONS} sessions, ${blocks} timeline blocks, ${sig(mb, 3)}M chars of text each` },
    { name: 'heap per session', value: sig(perSession / 1e6, 3), unit: 'MB', baseline: `plain string array ${sig(perArray / 1e6, 3)} MB` },
    { name: 'heap per session per MB of text', value: sig(perMb / 1e6, 3), unit: 'MB/MB', baseline: `plain string array ${sig(basePerMb / 1e6, 3)} MB/MB` },
    { name: 'session ÷ plain strings', value: sig(perSession / perArray, 3), unit: 'ratio', baseline: 'same texts in a string[]' },
  ];
}

if (isMain(import.meta.url)) console.log(formatRows(await bench()));

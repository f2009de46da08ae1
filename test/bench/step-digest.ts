/**
 * One digest of what the step bench's sessions render (every request, the decisions and plan of each render, the
 * final state), over its fourteen settings (the default policy's many turns and one open turn on both models, the
 * economy policy's on both models and both shapes; compaction on and off) cut to REQUESTS requests, with the bench's forked windows (the same
 * requests replayed after 50 requests and after the whole session, twice, alternated: branches of the states), plus
 * every fixture's requests and plans under both policies. A perf change to the render path that claims "no output
 * change" shows the same digests before and after. Not a test (nothing to compare with in the repository): run it
 * on both sides.
 *
 *     npx tsx test/bench/step-digest.ts          # STEP <digest>, FIXTURES <digest>, ALL <digest>
 *     npx tsx test/bench/step-digest.ts -v       # and one digest per setting and per fixture
 *
 * BENCH_DIGEST_REQUESTS sets the session length (default 1,500).
 */
import { createHash, type Hash } from 'node:crypto';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { replay } from '../../src/replay/replay.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { applyEvent, forkOf, singleTurnTrace, stepTrace } from './step.js';
import { fixtureTexts, isMain, parseFixture } from './util.js';

const REQUESTS = Number(process.env.BENCH_DIGEST_REQUESTS ?? 1_500);
const MODELS = ['claude-sonnet-4-6', 'claude-sonnet-5-5'] as const;
const POLICIES = ['conservative', 'economy'] as const;
/** Where the bench's windows are forked (requests made before the fork). */
const FORKS = [50, REQUESTS];
const WINDOW = 100;

type Options = Omit<RenderOptions, 'now' | 'tokens'>;

/** Digests of frozen messages (shared between requests along a chain: each is stringified once, not per request). */
const messageDigests = new WeakMap<object, string>();

/** Whether a message, its content array and each of its blocks are frozen (then it can never read otherwise). */
function frozen(m: MessageParam): boolean {
  return Object.isFrozen(m) && (typeof m.content === 'string' || (Object.isFrozen(m.content) && m.content.every((b) => Object.isFrozen(b))));
}

/**
 * Hashes a request as its JSON would (every field but the messages as JSON, then each message's JSON or, for a frozen
 * one, its digest): a 1M-window request's JSON at 1,500 requests is megabytes, stringified per request it made the
 * digest quadratic.
 */
function hashRequest(hash: Hash, request: MessageCreateParamsNonStreaming): void {
  const { messages, ...rest } = request;
  hash.update(JSON.stringify(rest));
  for (const m of messages) {
    let d = messageDigests.get(m);
    if (d === undefined) {
      d = createHash('sha256').update(JSON.stringify(m)).digest('hex').slice(0, 16);
      if (frozen(m)) messageDigests.set(m, d);
    }
    hash.update(d);
  }
}

interface Start {
  state: TimelineState | undefined;
  lastAt: number;
}

/**
 * Replays `events` from `start`, hashing every request, its decisions and plan; `before(requests, i, here)` is told
 * where the replay is before each event. Returns where it ended.
 */
function replayHashed(
  events: readonly TraceEvent[],
  options: Options,
  tokens: BlockTokenCache,
  start: Start,
  hash: Hash,
  before?: (requests: number, i: number, here: Start) => void,
): Start {
  let { state, lastAt } = start;
  let requests = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    before?.(requests, i, { state, lastAt });
    if (e.type === 'assistant') {
      let r: ReturnType<typeof render>;
      try {
        r = render(state!, { ...options, now: lastAt, tokens });
      } catch (err) {
        // A session the setting cannot go on with (a round over a compacting window): its error is part of the digest.
        hash.update(String(err));
        return { state, lastAt };
      }
      hashRequest(hash, toAnthropic(r));
      hash.update(JSON.stringify(r.decisions));
      hash.update(JSON.stringify(r.plan));
      state = appendResponse(r.state, e.content, e.at);
      requests++;
      continue;
    }
    state = applyEvent(state, e);
    if ('at' in e && typeof e.at === 'number') lastAt = e.at;
  }
  return { state, lastAt };
}

/** The window the bench replays after each length: the first WINDOW requests of another session, from its first user turn. */
function windowOf(events: readonly TraceEvent[], boundary: 'user' | 'tail'): TraceEvent[] {
  const out: TraceEvent[] = [];
  let n = 0;
  for (let i = events.findIndex((e) => e.type === boundary); i < events.length && n < WINDOW; i++) {
    const e = events[i]!;
    if (e.type === 'envelope') continue;
    out.push(e);
    if (e.type === 'assistant') n++;
  }
  return out;
}

/** One setting: the session, then the window forked at each of FORKS (at `boundary`, as the bench's replayForks), twice, alternated. */
function settingDigest(events: readonly TraceEvent[], window: readonly TraceEvent[], options: Options, boundary: 'user' | 'tail'): string {
  const hash = createHash('sha256');
  const tokens = new BlockTokenCache();
  const forks: { start: Start; firstAt: number }[] = [];
  const pending = [...FORKS];
  const end = replayHashed(events, options, tokens, { state: undefined, lastAt: 0 }, hash, (requests, i, here) => {
    if (events[i]!.type !== boundary || pending.length === 0 || requests < pending[0]!) return;
    pending.shift();
    const next = events.slice(i).find((x) => 'at' in x && typeof x.at === 'number') as { at: number } | undefined;
    forks.push({ start: here, firstAt: next?.at ?? here.lastAt + 60_000 });
  });
  // A length the session reached only at its end: the window continues the final state.
  if (pending.length > 0 && end.state) forks.push({ start: end, firstAt: end.lastAt + 60_000 });
  hash.update(JSON.stringify(end.state));
  let n = 0;
  for (let round = 0; round < 2; round++)
    for (const f of forks) {
      const out = replayHashed(forkOf(window, ++n, f.firstAt), options, tokens, f.start, hash);
      hash.update(JSON.stringify(out.state));
    }
  return hash.digest('hex').slice(0, 16);
}

/** The step bench's settings (test/bench/step.ts: its conservative many-turns, one-open-turn and economy parts). */
function settings(): { name: string; events: () => TraceEvent[]; window: () => TraceEvent[]; options: Options; boundary: 'user' | 'tail' }[] {
  const multi = { events: () => stepTrace(REQUESTS), window: () => windowOf(stepTrace(WINDOW + 50, 'bench-step-window'), 'user'), boundary: 'user' as const };
  const single = (model: string) => ({
    events: () => singleTurnTrace(REQUESTS, 'bench-step-single', model),
    window: () => windowOf(singleTurnTrace(WINDOW + 50, 'bench-step-single-window', model), 'tail'),
    boundary: 'tail' as const,
  });
  const off = (model: string): Options => ({ profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, compact: { enabled: false } });
  const out: ReturnType<typeof settings> = [
    { name: 'many turns, compaction on', ...multi, options: {} },
    { name: 'many turns, compaction off (1M)', ...multi, options: off('claude-sonnet-4-6') },
  ];
  for (const model of MODELS) {
    out.push({ name: `one open turn, ${model}, compaction on`, ...single(model), options: { profile: resolveProfile(model) } });
    out.push({ name: `one open turn, ${model}, compaction off (1M)`, ...single(model), options: off(model) });
  }
  for (const model of MODELS)
    for (const [mode, options] of [
      ['compaction on', { profile: resolveProfile(model), policy: 'economy' }],
      ['compaction off (1M)', { ...off(model), policy: 'economy' }],
    ] as const) {
      out.push({ name: `economy, one open turn, ${model}, ${mode}`, ...single(model), options });
      out.push({ name: `economy, many turns, ${model}, ${mode}`, ...multi, options });
    }
  return out;
}

/** The digests: STEP (the settings), FIXTURES (every fixture's requests and plans under both policies), and each one. */
export async function stepDigest(): Promise<{ step: string; fixtures: string; each: Record<string, string> }> {
  const each: Record<string, string> = {};
  const step = createHash('sha256');
  for (const s of settings()) {
    const d = settingDigest(s.events(), s.window(), s.options, s.boundary);
    each[s.name] = d;
    if (process.argv.includes('-v')) process.stderr.write(`${d}  ${s.name}\n`);
    step.update(d);
  }
  const fixtures = createHash('sha256');
  for (const { name, text } of fixtureTexts()) {
    const one = createHash('sha256');
    for (const policy of POLICIES)
      for await (const r of replay(parseFixture(text, name), { extras: { max_tokens: 2048 }, policy })) {
        one.update(JSON.stringify(r.request));
        one.update(JSON.stringify(r.rendered.decisions));
        one.update(JSON.stringify(r.rendered.plan));
      }
    each[name] = one.digest('hex').slice(0, 16);
    fixtures.update(each[name]!);
  }
  return { step: step.digest('hex').slice(0, 16), fixtures: fixtures.digest('hex').slice(0, 16), each };
}

if (isMain(import.meta.url)) {
  const { step, fixtures, each } = await stepDigest();
  if (process.argv.includes('-v')) for (const [name, d] of Object.entries(each)) console.log(`${d}  ${name}`);
  console.log(`STEP ${step}`);
  console.log(`FIXTURES ${fixtures}`);
}

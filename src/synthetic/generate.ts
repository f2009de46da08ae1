/**
 * A seeded generator of realistic synthetic session traces. Shapes follow real
 * agent sessions: tool results mostly a few hundred characters with a heavy
 * tail (median ~275, p90 ~2.4k, rare 50k–870k), 4–60 rounds per turn (median
 * ~8), a few seconds between requests with optional long idle gaps, parallel
 * tool calls, thinking blocks with signatures, some redacted thinking, some
 * failed tool calls; with `revisits`, agents go back to what they read at the
 * rates of real coding sessions (Edit after Read, re-run after a fix).
 * Same options → same events → same bytes.
 */
import { InvalidOptionError } from '../errors.js';
import { MODEL_PROFILES } from '../models/profiles.js';
import { agentInstruction, runtimeInstruction, SKILLS, TOOLS } from './catalog.js';
import * as C from './content.js';
import { Rng } from './rng.js';
import {
  type Call,
  CODING_PROMPTS,
  type EventInput,
  type Flavor,
  FOLLOW_UPS,
  RESEARCH_FOLLOW_UPS,
  ROOT,
  roundCalls,
  GeneratedSession,
  type Settings,
} from './generated-session.js';
import type { AssistantBlock, TraceEvent, TraceToolResult } from '../trace/types.js';
import type { TextBlockParam, Tool } from '../providers/anthropic-types.js';

// TYPES

/** What kind of session to generate. `mixed` draws a realistic blend per seed. */
export type TraceProfile = 'coding' | 'research' | 'fanout' | 'idle' | 'volatile-tail' | 'compaction' | 'mixed';

export const TRACE_PROFILES: readonly TraceProfile[] = ['coding', 'research', 'fanout', 'idle', 'volatile-tail', 'compaction', 'mixed'];

/** Options of {@link generateTrace}. Only `seed` is required; the profile sets the other defaults. */
export interface GenerateOptions {
  /** Seed of the PRNG: the same options and seed give the same trace, byte for byte. */
  readonly seed: number | string;
  /** Session kind (default `mixed`). */
  readonly profile?: TraceProfile;
  /** Exact number of model requests (assistant events). Default: drawn around a median of 29 (`idle`: 186). */
  readonly requests?: number;
  /** Instead of `requests`: this many turns, each with a drawn number of rounds. */
  readonly turns?: number;
  /** Instead of `requests`: add turns until the visible content reaches this many characters. */
  readonly minChars?: number;
  /** Rounds per turn: a log-normal around `median`, clamped to [min, max] (default 8, 4, 60). */
  readonly rounds?: { readonly median?: number; readonly min?: number; readonly max?: number };
  /** Idle gaps between turns: how many of 6–40 minutes and of 65–120 minutes. */
  readonly idleGaps?: { readonly over5m?: number; readonly over1h?: number };
  /** Fan-out rounds: how many rounds carry `min`–`max` parallel tool calls (default for `fanout`: 1 round, 20–30). */
  readonly fanout?: { readonly rounds?: number; readonly min?: number; readonly max?: number };
  /** How many results of 50k–870k characters to force (research: 1 of 300k–870k). */
  readonly hugeResults?: number;
  /** Chance of a spontaneous 50k–200k result per tool call (default 0.002). */
  readonly hugeRate?: number;
  /** Multiplier on typical result sizes (default 1; `compaction`: 2). */
  readonly resultScale?: number;
  /** Share of responses that start with a thinking block (default 0.65). */
  readonly thinkingRate?: number;
  /** Share of those that are redacted_thinking (default 0.05). */
  readonly redactedRate?: number;
  /** Share of tool calls that fail with `is_error: true` (default 0.04). */
  readonly errorRate?: number;
  /** Emit a volatile tail (a live view) before every request (`volatile-tail`: true). */
  readonly tail?: boolean;
  /** Emit hide events (a stale read after an edit, a skimmed huge page). Default true for coding-like profiles. */
  readonly hides?: boolean;
  /** Change the envelope once, mid-session (an extra tool appears). */
  readonly envelopeChange?: boolean;
  /**
   * Agents go back to what they read, at the rates of real coding sessions: an
   * Edit changes a file read a few rounds earlier (median 3 requests, p90 ~11;
   * often several edits to one file in a row), a failing test command is re-run
   * after the fix, a file still in view is seldom read again unchanged. Default
   * false (the committed fixtures before it keep their bytes; `revisits.jsonl` has it).
   */
  readonly revisits?: boolean;
  /**
   * Web searches never repeat an earlier query of the session by chance (a repeat drawn is redrawn or refined with
   * a word). Without it the queries come from a few dozen word spans, so a long research session repeats many
   * while the earlier result is in view, and each repeat of a pruned result counts as a forced recall. Default
   * false (the committed fixtures keep their bytes).
   */
  readonly distinctSearches?: boolean;
  /**
   * A lookup (Bash, Grep, Glob) never repeats an earlier call's arguments while no Edit or Write came since (a repeat
   * drawn is redrawn). Without it, commands and patterns come from small pools, so `git status` or `npm test` is
   * re-run by chance with nothing changed, its output different all the same, and each repeat of a pruned result
   * counts as a forced recall; agents re-run a lookup after a change (a test after a fix), seldom before. Default
   * false (the committed fixtures keep their bytes).
   */
  readonly distinctLookups?: boolean;
  /** Envelope model id (default `claude-sonnet-4-6`; `compaction`: `claude-opus-4-5`). */
  readonly model?: string;
  /** Time of the first user message (ISO-8601). Default: derived from the seed, in March 2026. */
  readonly start?: string;
}

// IMPLEMENTATION

const DAY = 86_400_000;

function settings(o: GenerateOptions, rng: Rng): Settings {
  const profile = o.profile ?? 'mixed';
  if (!TRACE_PROFILES.includes(profile)) throw new InvalidOptionError('profile', `must be one of ${TRACE_PROFILES.join(', ')}, got "${String(profile)}"`);
  if ([o.requests, o.turns, o.minChars].filter((v) => v !== undefined).length > 1)
    throw new InvalidOptionError('requests', 'give at most one of requests, turns and minChars');
  for (const [name, v] of [
    ['requests', o.requests],
    ['turns', o.turns],
    ['minChars', o.minChars],
    ['hugeResults', o.hugeResults],
  ] as const) {
    // hugeResults is a count that may be 0; the others need at least 1. JSON names the value: `String([870000])` reads as a number.
    const least = name === 'hugeResults' ? 0 : 1;
    if (v !== undefined && (!Number.isInteger(v) || v < least)) {
      const takes = least === 0 ? 'a non-negative integer (a count)' : 'a positive integer';
      throw new InvalidOptionError(name, `must be ${takes}, got ${typeof v === 'number' ? String(v) : JSON.stringify(v)}`, { value: v });
    }
  }
  for (const [name, v] of [
    ['thinkingRate', o.thinkingRate],
    ['redactedRate', o.redactedRate],
    ['errorRate', o.errorRate],
    ['hugeRate', o.hugeRate],
  ] as const) {
    if (v !== undefined && !(v >= 0 && v <= 1)) throw new InvalidOptionError(name, `must be a probability in [0, 1], got ${String(v)}`);
  }
  const mixed = profile === 'mixed';
  const flavor: Flavor = profile === 'research' || (mixed && rng.chance(0.2)) ? 'research' : 'coding';
  const rounds = { median: o.rounds?.median ?? 8, min: o.rounds?.min ?? 4, max: o.rounds?.max ?? 60 };
  if (!(rounds.min >= 1 && rounds.min <= rounds.median && rounds.median <= rounds.max))
    throw new InvalidOptionError('rounds', `needs 1 ≤ min ≤ median ≤ max, got ${JSON.stringify(rounds)}`);
  const minChars = o.minChars ?? (profile === 'compaction' ? 950_000 : undefined);
  const requests =
    o.requests ??
    (minChars !== undefined || o.turns !== undefined ? undefined : profile === 'idle' ? 186 : Math.min(220, Math.max(6, Math.round(rng.logNormal(29, 0.6)))));
  const fanout = o.fanout ?? (profile === 'fanout' ? { rounds: 1 } : mixed && rng.chance(0.15) ? { rounds: 1, min: 6, max: 12 } : { rounds: 0 });
  const start =
    o.start === undefined ? Date.UTC(2026, 2, 2, 8, 0, 0) + rng.int(0, 25) * DAY + rng.int(0, 10 * 3600) * 1000 + rng.int(0, 999) : Date.parse(o.start);
  if (Number.isNaN(start)) throw new InvalidOptionError('start', `must be an ISO-8601 time, got "${o.start}"`);
  return {
    flavor,
    requests,
    turns: o.turns,
    minChars,
    rounds,
    over5m: o.idleGaps?.over5m ?? (profile === 'idle' ? 4 : mixed && rng.chance(0.3) ? 1 : 0),
    over1h: o.idleGaps?.over1h ?? (profile === 'idle' ? 2 : mixed && rng.chance(0.1) ? 1 : 0),
    fanoutRounds: fanout.rounds ?? 1,
    fanoutMin: fanout.min ?? 20,
    fanoutMax: fanout.max ?? 30,
    huge: o.hugeResults ?? (profile === 'research' ? 1 : 0),
    hugeMin: profile === 'research' ? 300_000 : 50_000,
    hugeRate: o.hugeRate ?? 0.002,
    scale: o.resultScale ?? (profile === 'compaction' ? 3 : 1),
    thinkingRate: o.thinkingRate ?? 0.65,
    redactedRate: o.redactedRate ?? 0.05,
    errorRate: o.errorRate ?? 0.04,
    tail: o.tail ?? (profile === 'volatile-tail' || (mixed && rng.chance(0.2))),
    hides: o.hides ?? flavor === 'coding',
    envelopeChange: o.envelopeChange ?? false,
    revisits: o.revisits ?? false,
    distinctSearches: o.distinctSearches ?? false,
    distinctLookups: o.distinctLookups ?? false,
    model: o.model ?? (profile === 'compaction' ? 'claude-opus-4-5' : 'claude-sonnet-4-6'),
    start,
  };
}

/** Rounds per turn, summing to `requests`, each turn ≥ min when possible. */
function planTurns(rng: Rng, s: Settings, requests: number): number[] {
  const out: number[] = [];
  let left = requests;
  while (left > 0) {
    let r = drawRounds(rng, s);
    if (left - r < s.rounds.min) r = left;
    out.push(r);
    left -= r;
  }
  return out;
}

function drawRounds(rng: Rng, s: Settings): number {
  return Math.min(s.rounds.max, Math.max(s.rounds.min, Math.round(rng.logNormal(s.rounds.median, 0.75))));
}

// ---------------------------------------------------------------- assistant text

/** What the model says (lead text) and thinks before a call, from the call itself. */
function narrate(ss: GeneratedSession, c: Call): { lead: string; thought: string } {
  const { rng } = ss;
  const input = c.use.input as Record<string, unknown>;
  const rel = typeof input.file_path === 'string' ? input.file_path.replace(`${ROOT}/`, '') : '';
  const noun = rng.pick(C.NOUNS);
  switch (c.use.name) {
    case 'Read':
      return {
        lead: rng.pick([`Let me read ${rel}.`, `I'll look at ${rel}.`, `Let me check ${rel}.`]),
        thought: rng.pick([
          `I need to see how ${rel} handles ${noun}s before changing anything.`,
          `${rel} may have changed since I last read it, so I should read it again rather than rely on the old version.`,
          `The error points into ${rel}; reading it to find where the ${noun} is computed.`,
        ]),
      };
    case 'Edit':
      return {
        lead: rng.pick([`I'll fix this in ${rel}.`, `Now the change in ${rel}.`, `Updating ${rel}.`]),
        thought: `The problem is in ${rel}: ${C.ident(rng)} uses the wrong ${noun}. A minimal change there should fix the failing case without touching the API.`,
      };
    case 'Write':
      return {
        lead: `I'll add ${rel.endsWith('.md') ? 'the notes' : 'a test for this'}.`,
        thought: `Nothing covers ${noun}s ${rng.pick(['in a closed period', 'after a reversal', 'with mixed currencies'])} yet; I'll write it down in ${rel}.`,
      };
    case 'Bash':
      return {
        lead: `Let me run \`${String(input.command)}\`.`,
        thought: `Let me ${String(input.description ?? 'run it').replace(/^\w/, (x) => x.toLowerCase())} to see where things stand.`,
      };
    case 'Grep':
      return {
        lead: `Let me search for \`${String(input.pattern)}\`.`,
        thought: `I should find every use of ${String(input.pattern)} before I change its signature.`,
      };
    case 'Glob':
      return { lead: 'Let me find the relevant files.', thought: `I don't know the layout of this part yet; listing ${String(input.pattern)} first.` };
    case 'TodoWrite':
      return {
        lead: rng.pick(['Let me plan this out.', 'Updating the todo list.']),
        thought: 'This has several steps; I will track them in the todo list so none gets lost.',
      };
    case 'WebSearch':
      return {
        lead: `Let me search for ${String(input.query)}.`,
        thought: `I need current sources on ${String(input.query)}. Search first, then read the primary ones in full.`,
      };
    default:
      return {
        lead: `Let me read ${String(input.url)}.`,
        thought: `The result from ${new URL(String(input.url)).host} looks like a primary source; reading it before I cite it.`,
      };
  }
}

const GENERIC_THOUGHTS: Record<Flavor, readonly string[]> = {
  coding: [
    'The failing assertion compares totals, so the bug is probably in how entries are summed, not in the HTTP layer.',
    'Before editing, I need to make sure the migration and the repository agree on the column name.',
    'The test output shows one failure left, and it is on the refund path.',
    'I should keep the change small: the public API must not move.',
  ],
  research: [
    'Two sources disagree on the numbers. The primary documentation is more recent, so I will prefer it and mention the other.',
    'This page is long; the relevant part is one section. The rest is navigation and unrelated posts.',
    'I should note the date each page states, since the figures changed during the year.',
  ],
};

function answer(ss: GeneratedSession): string {
  const { rng, s } = ss;
  const topic = s.flavor === 'research' ? ss.topic[0] : 'ledger';
  const changed = [...ss.modified].slice(0, 4);
  const files = changed.map((p) => `\`${p}\``);
  const bullets =
    s.flavor === 'research' || changed.length === 0
      ? Array.from({ length: rng.int(2, 5) }, () => `- ${C.sentence(rng, topic)}`)
      : changed.map(
          (p) =>
            `- \`${p}\`: ${rng.pick(C.VERBS)} the ${rng.pick(C.NOUNS)} ${rng.pick(['before summing entries', 'inside the transaction', 'only for open periods', 'with the original currency', 'once per webhook delivery'])}${rng.pick([', so closed periods stay balanced.', '; the old path is kept for the API.', '.', ', which fixes the reported mismatch.'])}`,
        );
  const head =
    s.flavor === 'research' ? `Short answer: ${C.sentence(rng, topic)}` : files.length ? `Done. I changed ${files.join(', ')}.` : `Here is what I found.`;
  const tail =
    s.flavor === 'research'
      ? `Sources are listed in \`notes/${topic}-sources.md\`.`
      : rng.pick([
          'All tests pass and the typecheck is clean.',
          'The unit tests pass; I did not run the integration tests (they need `DATABASE_URL`).',
          'Let me know if you want me to commit this.',
        ]);
  return [head, '', ...bullets, '', tail].join('\n');
}

function assistantBlocks(ss: GeneratedSession, calls: readonly Call[], final: boolean): AssistantBlock[] {
  const { rng, s } = ss;
  const out: AssistantBlock[] = [];
  const told = calls[0] === undefined ? undefined : narrate(ss, calls[0]);
  if (rng.chance(s.thinkingRate)) {
    if (rng.chance(s.redactedRate)) out.push({ type: 'redacted_thinking', data: C.redactedData(rng) });
    else {
      const parts: string[] = [];
      if (final)
        parts.push(
          s.flavor === 'research'
            ? 'The sources agree on the main point. I have enough to answer with citations and flag the one estimate.'
            : 'I have enough to answer. I should summarise what changed and what I verified.',
        );
      else {
        if (rng.chance(0.4)) parts.push(rng.pick(GENERIC_THOUGHTS[s.flavor]));
        parts.push(told!.thought);
        if (calls.length > 1) parts.push(`These ${calls.length} calls are independent, so I'll make them in parallel.`);
      }
      out.push({ type: 'thinking', thinking: parts.join(' '), signature: C.signature(rng) });
    }
  }
  if (final) out.push({ type: 'text', text: answer(ss) });
  else {
    if (rng.chance(0.35)) out.push({ type: 'text', text: calls.length > 3 ? `I'll run these ${calls.length} lookups in parallel.` : told!.lead });
    for (const c of calls) out.push(c.use);
  }
  return out;
}

// ---------------------------------------------------------------- tail

// Not toLocaleString: its output depends on the ICU data Node was built with.
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function liveView(ss: GeneratedSession, requestAt: number): TextBlockParam {
  const { rng } = ss;
  const window = MODEL_PROFILES[ss.s.model]?.contextWindow ?? 200_000;
  const used = Math.round(ss.chars / 3.5);
  const mod = [...ss.modified];
  const lines = [
    '<live-view>',
    `request: ${ss.requests + 1}`,
    `time: ${new Date(requestAt).toISOString()}`,
    `budget: ${thousands(used)} / ${thousands(window)} tokens (${((100 * used) / window).toFixed(1)}%), $${(used * 3e-6 * 0.3 + ss.requests * 0.004).toFixed(2)} spent`,
    `workspace: branch fix/reconcile-refunds, ${mod.length} modified${mod.length ? ` (${mod.slice(0, 4).join(', ')}${mod.length > 4 ? ', …' : ''})` : ''}`,
    `interrupts: ${rng.chance(0.05) ? '"also check the JPY case" (user, queued)' : 'none'}`,
    '</live-view>',
  ];
  return { type: 'text', text: lines.join('\n') };
}

// ---------------------------------------------------------------- driver

function contentChars(e: TraceEvent): number {
  if (e.type === 'envelope') return e.instructions.join('').length + JSON.stringify(e.tools).length;
  if (e.type === 'hide') return 0;
  return typeof e.content === 'string' ? e.content.length : JSON.stringify(e.content).length;
}

/**
 * Generates one synthetic session trace.
 *
 * @throws {InvalidOptionError} naming the option when an option is out of range
 *
 * @example
 * const events = generateTrace({ seed: 42, profile: 'coding', requests: 30 });
 * writeFileSync('coding.jsonl', formatTrace(events));
 */
export function generateTrace(options: GenerateOptions): TraceEvent[] {
  const rng = new Rng(options.seed);
  const s = settings(options, rng);
  const plan =
    s.turns !== undefined ? Array.from({ length: s.turns }, () => drawRounds(rng, s)) : s.requests === undefined ? undefined : planTurns(rng, s, s.requests);
  const ss = new GeneratedSession(rng, s, plan?.reduce((a, b) => a + b, 0) ?? 150);
  const profileName = s.flavor;
  const tools: Tool[] = [...TOOLS];
  const envelope = (extra: Tool[] = []): void => {
    ss.push({
      type: 'envelope',
      model: s.model,
      instructions: [runtimeInstruction(profileName), agentInstruction(profileName)],
      tools: [...tools, ...extra],
      skills: SKILLS,
    });
    ss.chars += contentChars(ss.events[ss.events.length - 1]!);
  };
  envelope();

  // Idle gaps go on distinct turn boundaries, chosen up front.
  const turnsGuess = plan?.length ?? 40;
  const boundaries = rng.sample(
    Array.from({ length: Math.max(0, turnsGuess - 1) }, (_, i) => i + 1),
    Math.min(turnsGuess - 1, s.over5m + s.over1h),
  );
  const gapAt = new Map<number, 'over5m' | 'over1h'>(boundaries.map((b, i) => [b, i < s.over1h ? 'over1h' : 'over5m']));
  const envelopeTurn = s.envelopeChange ? Math.max(1, Math.floor(turnsGuess / 2)) : -1;

  const emit = (e: EventInput) => {
    ss.push(e);
    ss.chars += contentChars(ss.events[ss.events.length - 1]!);
  };
  const tail = (requestAt: number) => {
    if (s.tail) ss.push({ type: 'tail', content: [liveView(ss, requestAt)] });
  };

  for (let turn = 0; ; turn++) {
    const rounds = plan ? plan[turn] : drawRounds(rng, s);
    if (rounds === undefined) break;
    if (turn > 0) {
      const gap = gapAt.get(turn);
      ss.now +=
        gap === 'over1h'
          ? rng.int(65, 120) * 60_000 + rng.int(0, 59_999)
          : gap === 'over5m'
            ? rng.int(6, 40) * 60_000 + rng.int(0, 59_999)
            : Math.round(Math.min(240_000, Math.max(4_000, rng.logNormal(40_000, 0.9))));
      if (turn === envelopeTurn) {
        envelope([
          {
            name: 'mcp__linear__get_issue',
            description: 'Fetch a Linear issue by its key (e.g. LED-142): title, description, state, assignee and the latest comments.',
            input_schema: {
              type: 'object',
              properties: { issue_key: { type: 'string', description: 'The issue key, e.g. LED-142' } },
              required: ['issue_key'],
            },
          },
        ]);
      }
    }
    const prompt =
      turn === 0
        ? s.flavor === 'research'
          ? `${ss.topic[1]}? I need a sourced answer for a decision this week.`
          : rng.pick(CODING_PROMPTS)
        : rng.pick(s.flavor === 'research' ? RESEARCH_FOLLOW_UPS : FOLLOW_UPS);
    emit({ type: 'user', at: ss.now, atIso: ss.iso(ss.now), content: rng.chance(0.15) ? [{ type: 'text', text: prompt }] : prompt });
    for (let round = 0; round < rounds; round++) {
      const requestAt = ss.now;
      tail(requestAt);
      const final = round === rounds - 1;
      const calls = final ? [] : roundCalls(ss, round, rounds);
      const blocks = assistantBlocks(ss, calls, final);
      const outChars = JSON.stringify(blocks).length;
      // Generation time: time to first token plus output length at ~60 tokens/s.
      ss.now += Math.round(Math.min(60_000, rng.logNormal(2600, 0.5) + (outChars / 3.5 / 60) * 1000));
      ss.requests += 1;
      emit({ type: 'assistant', at: ss.now, atIso: ss.iso(ss.now), content: blocks });
      if (final) break;
      const longest = Math.max(...calls.map((c) => c.result.duration_ms ?? 0));
      ss.now += Math.round(longest + rng.int(5, 120));
      const results: (TraceToolResult | TextBlockParam)[] = rng.sample(calls, calls.length).map((c) => c.result);
      if (rng.chance(0.03))
        results.push({
          type: 'text',
          text: "<system-reminder>The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool. Ignore if not applicable.</system-reminder>",
        });
      emit({ type: 'tool_results', at: ss.now, atIso: ss.iso(ss.now), content: results });
      for (const h of ss.pendingHides.filter((p) => p.due <= ss.requests)) ss.push({ type: 'hide', tool_use_id: h.id, note: h.note });
      ss.pendingHides = ss.pendingHides.filter((p) => p.due > ss.requests);
      for (const c of calls) if (c.hide) ss.pendingHides.push({ ...c.hide, due: ss.requests + (c.hide.id === c.use.id ? 2 : 0) });
      for (const h of ss.pendingHides.filter((p) => p.due <= ss.requests)) ss.push({ type: 'hide', tool_use_id: h.id, note: h.note });
      ss.pendingHides = ss.pendingHides.filter((p) => p.due > ss.requests);
    }
    if (!plan && s.minChars !== undefined && ss.chars >= s.minChars) break;
  }
  return ss.events;
}

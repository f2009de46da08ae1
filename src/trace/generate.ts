/**
 * A seeded generator of realistic synthetic session traces. Shapes follow real
 * agent sessions: tool results mostly a few hundred characters with a heavy
 * tail (median ~275, p90 ~2.4k, rare 50k–870k), 4–60 rounds per turn (median
 * ~8), a few seconds between requests with optional long idle gaps, parallel
 * tool calls, thinking blocks with signatures, some redacted thinking, some
 * failed tool calls. Same options → same events → same bytes.
 */
import { InvalidOptionError } from '../errors.js';
import { agentInstruction, runtimeInstruction, SKILLS, TOOLS } from './catalog.js';
import * as C from './content.js';
import { BASE62, Rng } from './rng.js';
import type { AssistantBlock, TraceEvent, TraceToolResult } from './types.js';
import type { TextBlockParam, Tool, ToolUseBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';

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
  /** Envelope model id (default `claude-sonnet-4-6`; `compaction`: `claude-opus-4-5`). */
  readonly model?: string;
  /** Time of the first user message (ISO-8601). Default: derived from the seed, in March 2026. */
  readonly start?: string;
}

type Flavor = 'coding' | 'research';

/** An event before its line number is known. */
type EventInput = TraceEvent extends infer E ? (E extends TraceEvent ? Omit<E, 'line'> : never) : never;

interface Settings {
  readonly flavor: Flavor;
  readonly requests: number | undefined;
  readonly turns: number | undefined;
  readonly minChars: number | undefined;
  readonly rounds: { median: number; min: number; max: number };
  readonly over5m: number;
  readonly over1h: number;
  readonly fanoutRounds: number;
  readonly fanoutMin: number;
  readonly fanoutMax: number;
  readonly huge: number;
  readonly hugeMin: number;
  readonly hugeRate: number;
  readonly scale: number;
  readonly thinkingRate: number;
  readonly redactedRate: number;
  readonly errorRate: number;
  readonly tail: boolean;
  readonly hides: boolean;
  readonly envelopeChange: boolean;
  readonly model: string;
  readonly start: number;
}

// IMPLEMENTATION

const DAY = 86_400_000;

function settings(o: GenerateOptions, rng: Rng): Settings {
  const profile = o.profile ?? 'mixed';
  if (!TRACE_PROFILES.includes(profile)) throw new InvalidOptionError('profile', `must be one of ${TRACE_PROFILES.join(', ')}, got "${String(profile)}"`);
  if ([o.requests, o.turns, o.minChars].filter((v) => v !== undefined).length > 1)
    throw new InvalidOptionError('requests', 'give at most one of requests, turns and minChars');
  for (const [name, v] of [['requests', o.requests], ['turns', o.turns], ['minChars', o.minChars], ['hugeResults', o.hugeResults]] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 1 && name !== 'hugeResults' || v < 0))
      throw new InvalidOptionError(name, `must be a positive integer, got ${String(v)}`);
  }
  for (const [name, v] of [['thinkingRate', o.thinkingRate], ['redactedRate', o.redactedRate], ['errorRate', o.errorRate], ['hugeRate', o.hugeRate]] as const) {
    if (v !== undefined && !(v >= 0 && v <= 1)) throw new InvalidOptionError(name, `must be a probability in [0, 1], got ${String(v)}`);
  }
  const mixed = profile === 'mixed';
  const flavor: Flavor = profile === 'research' || (mixed && rng.chance(0.2)) ? 'research' : 'coding';
  const rounds = { median: o.rounds?.median ?? 8, min: o.rounds?.min ?? 4, max: o.rounds?.max ?? 60 };
  if (!(rounds.min >= 1 && rounds.min <= rounds.median && rounds.median <= rounds.max))
    throw new InvalidOptionError('rounds', `needs 1 ≤ min ≤ median ≤ max, got ${JSON.stringify(rounds)}`);
  const minChars = o.minChars ?? (profile === 'compaction' ? 950_000 : undefined);
  const requests =
    o.requests ?? (minChars !== undefined || o.turns !== undefined ? undefined : profile === 'idle' ? 186 : Math.min(220, Math.max(6, Math.round(rng.logNormal(29, 0.6)))));
  const fanout = o.fanout ?? (profile === 'fanout' ? { rounds: 1 } : mixed && rng.chance(0.15) ? { rounds: 1, min: 6, max: 12 } : { rounds: 0 });
  const start = o.start === undefined ? Date.UTC(2026, 2, 2, 8, 0, 0) + rng.int(0, 25) * DAY + rng.int(0, 10 * 3600) * 1000 + rng.int(0, 999) : Date.parse(o.start);
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

const CODING_FILES = [
  'src/domain/account.ts', 'src/domain/entry.ts', 'src/domain/posting.ts', 'src/domain/balance.ts', 'src/domain/money.ts', 'src/domain/currency.ts',
  'src/domain/ledger.ts', 'src/domain/period.ts', 'src/store/pool.ts', 'src/store/accounts-repo.ts', 'src/store/postings-repo.ts', 'src/store/tx.ts',
  'src/http/server.ts', 'src/http/routes.ts', 'src/http/errors.ts', 'src/http/validate.ts', 'src/jobs/reconcile.ts', 'src/jobs/webhook-retry.ts',
  'src/errors.ts', 'src/config.ts', 'test/domain/posting.test.ts', 'test/domain/balance.test.ts', 'test/domain/money.test.ts', 'test/http/routes.test.ts',
  'test/jobs/reconcile.test.ts', 'migrations/0001_init.sql', 'migrations/0002_periods.sql', 'migrations/0003_webhooks.sql', 'README.md', 'docs/api.md',
  'package.json', 'tsconfig.json',
];
const HUGE_FILES = ['test/fixtures/accounts-snapshot.json', 'logs/reconcile-2026-03-01.log'];
const ROOT = '/home/agent/projects/ledger-service';

const TOPICS: readonly (readonly [string, string, readonly string[]])[] = [
  ['caching', 'How prompt caching is priced and when cache entries expire', ['docs.anthropic.com', 'platform.openai.com', 'ai.google.dev', 'news.ycombinator.com']],
  ['databases', 'Why logical replication lag grows under bulk updates', ['www.postgresql.org', 'aws.amazon.com', 'www.crunchydata.com', 'stackoverflow.com']],
  ['vectors', 'Which vector index to pick for 50M embeddings with filters', ['ann-benchmarks.com', 'github.com', 'qdrant.tech', 'weaviate.io', 'arxiv.org']],
  ['policy', 'What the AI Act requires from providers of general-purpose models', ['eur-lex.europa.eu', 'digital-strategy.ec.europa.eu', 'www.euractiv.com', 'artificialintelligenceact.eu']],
];

const CODING_PROMPTS = [
  'The reconciliation job reports a mismatch for merchants with refunds in a closed period. Find out why and fix it; add a test.',
  'Add a `reverse` posting kind: it must reference the original posting, be balanced, and be rejected in closed periods. Update the API and docs.',
  'Tests in test/domain/balance.test.ts started failing after the money refactor. Please fix them without changing the public API.',
  'The webhook retry worker sometimes sends the same event twice. Can you find the race and make it idempotent?',
  'Rename `amount` to `amountMinor` across the domain layer and the repositories, keeping the wire format unchanged.',
];
const FOLLOW_UPS = [
  'Thanks. Can you also run the integration tests and tell me if anything else broke?',
  'Looks good. Now add the same check to the transfer endpoint.',
  'The CI typecheck still fails on my machine, see if you can reproduce.',
  'Please also update docs/api.md with the new error code.',
  'One more thing: the error message should say which account was closed.',
  'ok, commit this with a good message',
  'Hmm, that changed the rounding for JPY. Please keep zero-decimal currencies as they were.',
];
const RESEARCH_FOLLOW_UPS = [
  'Can you double-check the numbers against the primary source?',
  'Good. Write the findings to a notes file with the sources at the end.',
  'What changed in the last release? Look for a changelog.',
  'Compare that with the two main alternatives, briefly.',
];

interface FileState {
  content: string;
  /** tool_use id of the latest successful full read still visible, and whether the file changed since. */
  lastRead?: { id: string; stale: boolean };
}

/** Mutable generator state for one session. */
class Session {
  readonly rng: Rng;
  readonly s: Settings;
  readonly events: TraceEvent[] = [];
  readonly files = new Map<string, FileState>();
  readonly modified = new Set<string>();
  hot: string[] = [];
  now: number;
  chars = 0;
  requests = 0;
  hugeAt: Set<number>;
  fanoutAt: Set<number>;
  topic: (typeof TOPICS)[number];
  pendingHides: { id: string; note: string; due: number }[] = [];

  constructor(rng: Rng, s: Settings, totalRequests: number) {
    this.rng = rng;
    this.s = s;
    this.now = s.start;
    // Forced huge results and fan-out rounds land on chosen request indexes (never the first).
    const span = Math.max(2, totalRequests);
    this.hugeAt = new Set(Array.from({ length: s.huge }, () => rng.int(1, span - 1)));
    this.fanoutAt = new Set(Array.from({ length: s.fanoutRounds }, () => rng.int(1, Math.max(1, Math.min(span - 1, 12)))));
    this.topic = rng.pick(TOPICS);
  }

  iso(ms: number): string {
    return new Date(ms).toISOString();
  }

  push(e: EventInput): void {
    this.events.push({ ...e, line: this.events.length + 1 } as TraceEvent);
  }

  id(): string {
    return `toolu_01${this.rng.chars(22, BASE62)}`;
  }

  size(median: number, sigma: number, min = 20, max = 45_000): number {
    return Math.round(Math.min(max, Math.max(min, this.rng.logNormal(median * this.s.scale, sigma))));
  }

  file(path: string): FileState {
    let f = this.files.get(path);
    if (f === undefined) {
      const huge = HUGE_FILES.includes(path);
      const target = huge ? this.rng.int(this.s.hugeMin, 870_000) : this.size(1700, 1.3, 120, 40_000);
      f = { content: path.endsWith('.log') ? C.buildLog(this.rng, target) : C.sourceFile(this.rng, path, target) };
      this.files.set(path, f);
    }
    return f;
  }

  touch(path: string): void {
    this.hot = [path, ...this.hot.filter((p) => p !== path)].slice(0, 5);
  }
}

interface Call {
  readonly use: ToolUseBlockParam;
  readonly result: TraceToolResult;
  readonly hide?: { id: string; note: string };
}

// ---------------------------------------------------------------- tool calls

function call(ss: Session, name: string, input: Record<string, unknown>, content: string, durationMs: number, isError = false): Call {
  const id = ss.id();
  return {
    use: { type: 'tool_use', id, name, input },
    result: {
      type: 'tool_result',
      tool_use_id: id,
      content,
      ...(isError ? { is_error: true } : {}),
      duration_ms: Math.max(1, Math.round(durationMs)),
    },
  };
}

function readCall(ss: Session, path: string, huge = false): Call {
  const { rng, s } = ss;
  const abs = `${ROOT}/${path}`;
  if (!huge && rng.chance(s.errorRate)) {
    const wrong = abs.replace(/\.ts$/, 's.ts').replace(/\.md$/, '.markdown');
    return call(ss, 'Read', { file_path: wrong }, `<tool_use_error>File does not exist. Current working directory: ${ROOT}</tool_use_error>`, rng.int(1, 6), true);
  }
  const f = ss.file(path);
  const lines = f.content.split('\n').length;
  if (!huge) ss.touch(path);
  if (!huge && lines > 60 && rng.chance(0.4)) {
    const offset = rng.int(1, lines - 30);
    const limit = rng.pick([20, 30, 40, 50, 60, 80]);
    return call(ss, 'Read', { file_path: abs, offset, limit }, C.numbered(f.content, offset, limit), rng.int(2, 30));
  }
  const c = call(ss, 'Read', { file_path: abs }, C.numbered(f.content), rng.int(2, 40) + f.content.length / 20_000);
  const prev = f.lastRead;
  f.lastRead = { id: c.use.id, stale: false };
  if (s.hides && prev?.stale && rng.chance(0.6)) return { ...c, hide: { id: prev.id, note: `superseded: ${path} was edited and read again` } };
  return c;
}

function editCall(ss: Session): Call {
  const { rng, s } = ss;
  const path = ss.hot.find((p) => !p.endsWith('.json')) ?? rng.pick(CODING_FILES.slice(0, 20));
  const f = ss.file(path);
  const abs = `${ROOT}/${path}`;
  const lines = f.content.split('\n');
  const candidates = lines.map((l, i) => [l, i] as const).filter(([l]) => l.trim().length > 18 && f.content.indexOf(l) === f.content.lastIndexOf(l));
  if (candidates.length === 0 || rng.chance(s.errorRate)) {
    const old = `  ${C.ident(rng)}(${rng.pick(C.NOUNS)});`;
    return call(ss, 'Edit', { file_path: abs, old_string: old, new_string: old.replace('(', '(ctx, ') }, `<tool_use_error>String to replace not found in file.\nString: ${old}</tool_use_error>`, rng.int(2, 10), true);
  }
  const [line, index] = rng.pick(candidates);
  const two = rng.chance(0.4) && index + 1 < lines.length;
  const oldString = two ? `${line}\n${lines[index + 1]}` : line;
  const nouns = C.NOUNS.filter((n) => line.includes(n));
  let replaced = nouns.length > 0 ? line.replace(rng.pick(nouns), rng.pick(C.NOUNS)) : line;
  if (replaced === line) replaced = `${line} // ${rng.pick(C.VERBS)}s the ${rng.pick(C.NOUNS)}`;
  const extra = rng.chance(0.3) ? `\n${' '.repeat(line.length - line.trimStart().length)}if (${rng.pick(C.NOUNS)} === undefined) return;` : '';
  const newString = two ? `${replaced}${extra}\n${lines[index + 1]}` : `${replaced}${extra}`;
  f.content = f.content.replace(oldString, () => newString);
  if (f.lastRead) f.lastRead.stale = true;
  ss.modified.add(path);
  ss.touch(path);
  const snippet = C.numbered(f.content, Math.max(1, index - 1), rng.int(3, 6));
  return call(
    ss,
    'Edit',
    { file_path: abs, old_string: oldString, new_string: newString },
    rng.chance(0.75) ? `The file ${abs} has been updated successfully.` : `The file ${abs} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
    rng.int(3, 40),
  );
}

function writeCall(ss: Session): Call {
  const { rng } = ss;
  const path =
    ss.s.flavor === 'research'
      ? `notes/${ss.topic[0]}-${rng.pick(['findings', 'sources', 'comparison', 'summary'])}.md`
      : `test/${rng.pick(['domain', 'http', 'jobs'])}/${rng.pick(C.NOUNS)}-${rng.pick(C.VERBS)}.test.ts`;
  const content = ss.s.flavor === 'research' ? C.markdownPage(rng, ss.topic[0], ss.topic[1], rng.int(800, 3500)) : C.sourceFile(rng, path, rng.int(600, 2800));
  ss.files.set(path, { content });
  ss.modified.add(path);
  const abs = `${ss.s.flavor === 'research' ? '/home/agent/notes' : ROOT}/${path}`;
  return call(ss, 'Write', { file_path: abs, content }, `File created successfully at: ${abs}`, rng.int(3, 30));
}

function globCall(ss: Session): Call {
  const { rng } = ss;
  const dir = rng.pick(['src', 'src/domain', 'test', 'src/http', 'migrations']);
  const pattern = rng.pick([`${dir}/**/*.ts`, '**/*.test.ts', `${dir}/**/*`, '**/*.sql', '**/*.md']);
  const ext = pattern.slice(pattern.lastIndexOf('.'));
  let hits = CODING_FILES.filter((p) => (pattern.startsWith('**') || p.startsWith(dir)) && (ext === '.*' || ext.endsWith('*') || p.endsWith(ext)));
  if (hits.length === 0) hits = rng.sample(CODING_FILES, 3);
  return call(ss, 'Glob', { pattern }, hits.map((p) => `${ROOT}/${p}`).join('\n'), rng.int(8, 160));
}

function grepCall(ss: Session): Call {
  const { rng } = ss;
  const pattern = rng.pick([C.ident(rng), `${rng.pick(C.NOUNS)}Id`, `LedgerError\\('${rng.pick(['closed_period', 'unbalanced_posting', 'unknown_account'])}'`, `function ${rng.pick(C.VERBS)}\\w+`]);
  if (rng.chance(0.65)) {
    const hits = rng.sample(CODING_FILES.slice(0, 25), rng.int(0, 7));
    const body = hits.length === 0 ? 'No files found' : `Found ${hits.length} file${hits.length > 1 ? 's' : ''}\n${hits.map((p) => `${ROOT}/${p}`).join('\n')}`;
    return call(ss, 'Grep', { pattern, path: `${ROOT}/src` }, body, rng.int(15, 300));
  }
  const target = ss.size(300, 1.0, 60, 30_000);
  const out: string[] = [];
  let len = 0;
  while (len < target) {
    const p = rng.pick(CODING_FILES.slice(0, 25));
    const l = `${ROOT}/${p}:${rng.int(1, 400)}:${C.sourceFile(rng, p, 60).split('\n').find((x) => x.trim().length > 10) ?? pattern}`;
    out.push(l);
    len += l.length + 1;
  }
  return call(ss, 'Grep', { pattern, path: ROOT, glob: '*.ts', output_mode: 'content', '-n': true }, out.join('\n'), rng.int(20, 600));
}

function bashCall(ss: Session, phase: number, huge?: readonly [number, number]): Call {
  const { rng, s } = ss;
  if (huge) {
    const target = rng.int(huge[0], huge[1]);
    return call(ss, 'Bash', { command: 'cat logs/reconcile-2026-03-01.log', description: "Show yesterday's reconciliation log" }, C.buildLog(rng, target), rng.int(40, 900));
  }
  const tests = rng.sample(CODING_FILES.filter((p) => p.endsWith('.test.ts')), rng.int(3, 5));
  const kind = rng.weighted<string>(
    phase < 0.3 ? [['status', 3], ['log', 2], ['ls', 2], ['test', 2], ['quiet', 2]] : [['test', 4], ['typecheck', 3], ['lint', 1], ['status', 1], ['diff', 1], ['quiet', 3]],
  );
  switch (kind) {
    case 'test': {
      const failing = rng.chance(phase < 0.8 ? 0.5 : 0.15) ? 1 : 0;
      const out = C.testRun(rng, tests, failing);
      return call(ss, 'Bash', { command: rng.pick(['npm test', 'npx vitest run test/domain', 'npm test -- --reporter=dot']), description: 'Run the unit tests' }, failing ? `Exit code 1\n${out}` : out, rng.logNormal(3500, 0.6), failing === 1);
    }
    case 'typecheck': {
      const n = rng.chance(0.4) ? rng.int(1, 6) : 0;
      const out = `\n> ledger-service@0.4.2 typecheck\n> tsc --noEmit\n${n ? `\n${C.typecheck(rng, CODING_FILES.slice(0, 20), n)}` : ''}`;
      return call(ss, 'Bash', { command: 'npm run typecheck', description: 'Type-check the project' }, n ? `Exit code 2\n${out}` : out, rng.logNormal(4200, 0.4), n > 0);
    }
    case 'quiet': {
      const [command, description, out] = rng.pick([
        [`mkdir -p test/${rng.pick(['domain', 'jobs', 'http'])}`, 'Create the test directory', ''],
        ['npm run build', 'Build the project', '\n> ledger-service@0.4.2 build\n> tsc -p tsconfig.build.json\n'],
        [`git add -A && git commit -m "${C.cap(rng.pick(C.VERBS))} ${rng.pick(C.NOUNS)} ${rng.pick(['handling', 'validation'])}"`, 'Commit the change', `[fix/${rng.pick(C.NOUNS)} ${rng.chars(7, '0123456789abcdef')}] ${C.cap(rng.pick(C.VERBS))} ${rng.pick(C.NOUNS)} handling\n ${rng.int(1, 6)} files changed, ${rng.int(3, 90)} insertions(+), ${rng.int(0, 30)} deletions(-)`],
        ['node --version && npm --version', 'Check tool versions', 'v20.20.2\n10.8.2'],
        [`wc -l src/domain/*.ts`, 'Count lines in the domain layer', CODING_FILES.filter((p) => p.startsWith('src/domain')).map((p) => `${String(rng.int(20, 400)).padStart(5)} ${p}`).join('\n')],
      ] as const);
      return call(ss, 'Bash', { command, description }, out, rng.int(20, 2500));
    }
    case 'lint':
      return call(ss, 'Bash', { command: 'npm run lint', description: 'Lint with biome' }, `\n> ledger-service@0.4.2 lint\n> biome check src test\n\nChecked ${rng.int(40, 90)} files in ${rng.int(20, 90)}ms. No fixes applied.`, rng.int(300, 1500));
    case 'log': {
      const lines = Array.from({ length: rng.int(5, 12) }, () => `${rng.chars(7, '0123456789abcdef')} ${C.cap(rng.pick(C.VERBS))} ${rng.pick(C.NOUNS)} ${rng.pick(['handling', 'validation', 'retries', 'rounding', 'queries'])}`);
      return call(ss, 'Bash', { command: 'git log --oneline -12', description: 'Show recent commits' }, lines.join('\n'), rng.int(10, 60));
    }
    case 'ls': {
      const dir = rng.pick(['src/domain', 'src/store', 'test', 'migrations']);
      const entries = CODING_FILES.filter((p) => p.startsWith(dir)).map((p) => `-rw-r--r--  1 agent agent ${String(rng.int(300, 9000)).padStart(5)} Mar  ${rng.int(1, 9)} ${rng.int(10, 18)}:${String(rng.int(0, 59)).padStart(2, '0')} ${p.slice(dir.length + 1)}`);
      return call(ss, 'Bash', { command: `ls -la ${dir}`, description: `List files in ${dir}` }, [`total ${rng.int(20, 90)}`, 'drwxr-xr-x  2 agent agent  4096 Mar  2 09:12 .', 'drwxr-xr-x  9 agent agent  4096 Mar  2 09:12 ..', ...entries].join('\n'), rng.int(5, 30));
    }
    case 'diff': {
      const files = [...ss.modified].slice(0, 6);
      const body = files.length ? `${files.map((p) => ` ${p.padEnd(32)} | ${String(rng.int(1, 40)).padStart(3)} ${'+'.repeat(rng.int(1, 12))}${'-'.repeat(rng.int(0, 6))}`).join('\n')}\n ${files.length} files changed, ${rng.int(5, 120)} insertions(+), ${rng.int(0, 40)} deletions(-)` : '';
      return call(ss, 'Bash', { command: 'git diff --stat', description: 'Show changed files' }, body, rng.int(10, 80));
    }
    default: {
      const mod = [...ss.modified].slice(0, 6);
      const body = `On branch fix/${rng.pick(C.NOUNS)}-${rng.pick(C.VERBS)}\n${mod.length ? `Changes not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n${mod.map((p) => `\tmodified:   ${p}`).join('\n')}\n\nno changes added to commit (use "git add" and/or "git commit -a")` : 'nothing to commit, working tree clean'}`;
      return call(ss, 'Bash', { command: 'git status', description: 'Show working tree status' }, body, rng.int(10, 60));
    }
  }
}

function searchCall(ss: Session): Call {
  const { rng } = ss;
  const [topic, question, domains] = ss.topic;
  const query = `${question.split(' ').slice(rng.int(0, 2), rng.int(5, 9)).join(' ').toLowerCase()} ${rng.pick(['2026', 'benchmark', 'documentation', 'pricing', 'explained', ''])}`.trim();
  const links = Array.from({ length: rng.int(3, 8) }, () => {
    const d = rng.pick(domains);
    return { title: `${C.cap(rng.pick(C.VERBS))}ing ${C.sentence(rng, topic).split(' ').slice(0, 5).join(' ')}`, url: `https://${d}/${rng.pick(['docs', 'blog', 'en', 'questions', 'abs'])}/${rng.chars(rng.int(6, 14), 'abcdefghijklmnopqrstuvwxyz-')}` };
  });
  const summary = Array.from({ length: rng.int(0, 3) }, () => C.sentence(rng, topic)).join(' ');
  return call(ss, 'WebSearch', { query }, `Web search results for query: "${query}"\n\nLinks: ${JSON.stringify(links)}\n\n${summary}`, rng.logNormal(1800, 0.4));
}

function fetchCall(ss: Session, huge?: readonly [number, number]): Call {
  const { rng, s } = ss;
  const [topic, question, domains] = ss.topic;
  const url = `https://${rng.pick(domains)}/${rng.pick(['docs', 'blog', 'en/latest', 'guides'])}/${rng.chars(rng.int(6, 18), 'abcdefghijklmnopqrstuvwxyz-')}`;
  const input = { url, prompt: rng.pick([`Extract what this page says about ${question.toLowerCase()}`, 'Summarize the key numbers and their dates', 'List the limits and prices mentioned, with units', 'Return the full text of the relevant section']) };
  if (!huge && rng.chance(s.errorRate)) return call(ss, 'WebFetch', input, `Request failed with status code ${rng.pick([403, 404, 429, 500])}`, rng.int(200, 3000), true);
  // Most fetch tools return a model-written digest of the page; some return the raw page.
  const raw = huge !== undefined || rng.chance(0.2);
  const target = huge ? rng.int(huge[0], huge[1]) : raw ? ss.size(5000, 1.2, 800, 60_000) : ss.size(450, 0.8, 120, 8000);
  const title = C.sentence(rng, topic).replace(/\.$/, '');
  const body = !raw ? C.markdownPage(rng, topic, title, target).split('\n').slice(4).join('\n') : rng.chance(0.4) ? C.htmlPage(rng, topic, title, target) : C.markdownPage(rng, topic, title, target);
  const c = call(ss, 'WebFetch', input, body, rng.logNormal(2500, 0.6) + target / 400);
  return body.length > 40_000 && s.hides ? { ...c, hide: { id: c.use.id, note: `page skimmed; the relevant section is in notes/${topic}-sources.md` } } : c;
}

function todoCall(ss: Session): Call {
  const { rng } = ss;
  const n = rng.int(3, 6);
  const done = rng.int(0, n - 1);
  const todos = Array.from({ length: n }, (_, i) => {
    const v = C.cap(rng.pick(C.VERBS));
    const what = `${rng.pick(C.NOUNS)} ${rng.pick(['handling', 'validation', 'tests', 'docs'])}`;
    return { content: `${v} ${what}`, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending', activeForm: `${v.replace(/e$/, '')}ing ${what}` };
  });
  return call(ss, 'TodoWrite', { todos }, 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable', rng.int(1, 6));
}

/** The calls of one tool round. */
function roundCalls(ss: Session, round: number, rounds: number): Call[] {
  const { rng, s } = ss;
  const phase = rounds <= 1 ? 0 : round / (rounds - 1);
  const index = ss.requests;
  // A chosen index may fall on a final (answer) round; the event then happens in the next tool round.
  const due = (set: Set<number>) => {
    const hit = [...set].find((i) => i <= index);
    if (hit !== undefined) set.delete(hit);
    return hit !== undefined;
  };
  if (due(ss.fanoutAt)) {
    const n = rng.int(s.fanoutMin, s.fanoutMax);
    if (s.flavor === 'research') return Array.from({ length: n }, () => (rng.chance(0.5) ? searchCall(ss) : fetchCall(ss)));
    const paths = rng.sample([...CODING_FILES, ...CODING_FILES.map((p) => p.replace('.ts', '.d.ts'))], n);
    return paths.map((p) => (rng.chance(0.85) ? readCall(ss, p) : grepCall(ss)));
  }
  if (due(ss.hugeAt)) {
    const range = [s.hugeMin, 870_000] as const;
    if (s.flavor === 'research') return [fetchCall(ss, range)];
    return [rng.chance(0.5) ? readCall(ss, HUGE_FILES[0]!, true) : bashCall(ss, phase, range)];
  }
  const n = rng.weighted([[1, 62], [2, 24], [3, 10], [4, 3], [5, 1]] as const);
  const calls: Call[] = [];
  for (let i = 0; i < n; i++) {
    if (rng.chance(s.hugeRate)) {
      const range = [50_000, 200_000] as const;
      calls.push(s.flavor === 'research' ? fetchCall(ss, range) : bashCall(ss, phase, range));
      continue;
    }
    calls.push(s.flavor === 'research' ? researchAction(ss, phase, round) : codingAction(ss, phase, round));
    // Parallel calls are independent: an Edit is issued alone.
    if (calls[calls.length - 1]!.use.name === 'Edit' || calls[calls.length - 1]!.use.name === 'TodoWrite') break;
  }
  return calls;
}

function codingAction(ss: Session, phase: number, round: number): Call {
  const { rng } = ss;
  const reread = () => readCall(ss, ss.hot.length > 0 && rng.chance(0.55) ? rng.pick(ss.hot) : rng.pick(CODING_FILES));
  const table: [() => Call, number][] =
    phase < 0.3
      ? [[reread, 34], [() => grepCall(ss), 20], [() => globCall(ss), 10], [() => bashCall(ss, phase), 12], [() => todoCall(ss), round === 0 ? 25 : 2], [() => editCall(ss), ss.hot.length ? 6 : 0]]
      : phase < 0.75
        ? [[reread, 26], [() => editCall(ss), 34], [() => grepCall(ss), 10], [() => bashCall(ss, phase), 16], [() => writeCall(ss), 3], [() => todoCall(ss), 4]]
        : [[() => bashCall(ss, phase), 42], [reread, 20], [() => editCall(ss), 26], [() => todoCall(ss), 8], [() => grepCall(ss), 4]];
  return rng.weighted(table)();
}

function researchAction(ss: Session, phase: number, _round: number): Call {
  const { rng } = ss;
  const table: [() => Call, number][] =
    phase < 0.3
      ? [[() => searchCall(ss), 45], [() => fetchCall(ss), 40], [() => todoCall(ss), 15]]
      : phase < 0.75
        ? [[() => fetchCall(ss), 45], [() => searchCall(ss), 20], [() => writeCall(ss), 10], [() => todoCall(ss), 8], [() => bashCall(ss, phase), 10]]
        : [[() => writeCall(ss), 25], [() => fetchCall(ss), 35], [() => searchCall(ss), 20], [() => readCall(ss, rng.pick(['README.md', 'docs/api.md'])), 10]];
  return rng.weighted(table)();
}

// ---------------------------------------------------------------- assistant text

function lead(ss: Session, calls: readonly Call[]): string {
  const { rng } = ss;
  const first = calls[0]!.use;
  const input = first.input as Record<string, unknown>;
  const what = typeof input.file_path === 'string' ? input.file_path.replace(`${ROOT}/`, '') : typeof input.query === 'string' ? `"${input.query}"` : typeof input.url === 'string' ? input.url : first.name;
  return calls.length > 3
    ? `I'll read the ${calls.length} files in parallel to see the whole picture.`
    : rng.pick([`Let me look at ${what}.`, `Now I'll check ${what}.`, `Let me run this to confirm.`, `I'll search for ${what} first.`, `Let me verify the change.`, `Good. Next, ${what}.`]);
}

function answer(ss: Session): string {
  const { rng, s } = ss;
  const topic = s.flavor === 'research' ? ss.topic[0] : 'ledger';
  const bullets = Array.from({ length: rng.int(2, 5) }, () => `- ${C.sentence(rng, topic)}`);
  const files = [...ss.modified].slice(0, 4).map((p) => `\`${p}\``);
  const head = s.flavor === 'research' ? `Short answer: ${C.sentence(rng, topic)}` : files.length ? `Done. I changed ${files.join(', ')}.` : `Here is what I found.`;
  const tail = s.flavor === 'research' ? `Sources are listed in \`notes/${topic}-sources.md\`.` : rng.pick(['All tests pass and the typecheck is clean.', 'The unit tests pass; I did not run the integration tests (they need `DATABASE_URL`).', 'Let me know if you want me to commit this.']);
  return [head, '', ...bullets, '', tail].join('\n');
}

function assistantBlocks(ss: Session, calls: readonly Call[], final: boolean): AssistantBlock[] {
  const { rng, s } = ss;
  const out: AssistantBlock[] = [];
  if (rng.chance(s.thinkingRate)) {
    if (rng.chance(s.redactedRate)) out.push({ type: 'redacted_thinking', data: C.redactedData(rng) });
    else {
      const firstInput = calls[0]?.use.input as Record<string, unknown> | undefined;
      const file = typeof firstInput?.file_path === 'string' ? firstInput.file_path.replace(`${ROOT}/`, '') : rng.pick(CODING_FILES);
      out.push({
        type: 'thinking',
        thinking: C.thinkingText(rng, { file, fn: C.ident(rng), goal: 'the fix to be minimal and tested', topicWord: rng.pick(C.NOUNS) }),
        signature: C.signature(rng),
      });
    }
  }
  if (final) out.push({ type: 'text', text: answer(ss) });
  else {
    if (rng.chance(0.35)) out.push({ type: 'text', text: lead(ss, calls) });
    for (const c of calls) out.push(c.use);
  }
  return out;
}

// ---------------------------------------------------------------- tail

function liveView(ss: Session, requestAt: number): TextBlockParam {
  const { rng } = ss;
  const window = ss.s.model === 'claude-opus-4-5' ? 200_000 : 1_000_000;
  const used = Math.round(ss.chars / 3.5);
  const mod = [...ss.modified];
  const lines = [
    '<live-view>',
    `request: ${ss.requests + 1}`,
    `time: ${new Date(requestAt).toISOString()}`,
    `budget: ${used.toLocaleString('en-US')} / ${window.toLocaleString('en-US')} tokens (${((100 * used) / window).toFixed(1)}%), $${(used * 3e-6 * 0.3 + ss.requests * 0.004).toFixed(2)} spent`,
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
  const plan = s.turns !== undefined ? Array.from({ length: s.turns }, () => drawRounds(rng, s)) : s.requests === undefined ? undefined : planTurns(rng, s, s.requests);
  const ss = new Session(rng, s, plan?.reduce((a, b) => a + b, 0) ?? 150);
  const profileName = s.flavor;
  const tools: Tool[] = [...TOOLS];
  const envelope = (extra: Tool[] = []): void => {
    ss.push({ type: 'envelope', model: s.model, instructions: [runtimeInstruction(profileName), agentInstruction(profileName)], tools: [...tools, ...extra], skills: SKILLS });
    ss.chars += contentChars(ss.events[ss.events.length - 1]!);
  };
  envelope();

  // Idle gaps go on distinct turn boundaries, chosen up front.
  const turnsGuess = plan?.length ?? 40;
  const boundaries = rng.sample(Array.from({ length: Math.max(0, turnsGuess - 1) }, (_, i) => i + 1), Math.min(turnsGuess - 1, s.over5m + s.over1h));
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
      ss.now += gap === 'over1h' ? rng.int(65, 120) * 60_000 + rng.int(0, 59_999) : gap === 'over5m' ? rng.int(6, 40) * 60_000 + rng.int(0, 59_999) : Math.round(Math.min(240_000, Math.max(4_000, rng.logNormal(40_000, 0.9))));
      if (turn === envelopeTurn) {
        envelope([{ name: 'mcp__linear__get_issue', description: 'Fetch a Linear issue by its key (e.g. LED-142): title, description, state, assignee and the latest comments.', input_schema: { type: 'object', properties: { issue_key: { type: 'string', description: 'The issue key, e.g. LED-142' } }, required: ['issue_key'] } }]);
      }
    }
    const prompt = turn === 0 ? (s.flavor === 'research' ? `${ss.topic[1]}? I need a sourced answer for a decision this week.` : rng.pick(CODING_PROMPTS)) : rng.pick(s.flavor === 'research' ? RESEARCH_FOLLOW_UPS : FOLLOW_UPS);
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
      if (rng.chance(0.03)) results.push({ type: 'text', text: '<system-reminder>The TodoWrite tool hasn\'t been used recently. If you\'re working on tasks that would benefit from tracking progress, consider using the TodoWrite tool. Ignore if not applicable.</system-reminder>' });
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

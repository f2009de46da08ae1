/**
 * The mutable state of one generated session (virtual files, hot set, clock,
 * pending hides) and the builders of its tool calls: each returns a tool_use
 * with realistic arguments and the result a real runtime would give, sized by
 * the profile's distributions. Internal to the generator.
 */
import * as C from './content.js';
import { BASE62, type Rng } from './rng.js';
import type { TraceEvent, TraceToolResult } from '../trace/types.js';
import type { ToolUseBlockParam } from '../providers/anthropic-types.js';

export type Flavor = 'coding' | 'research';

/** An event before its line number is known. */
export type EventInput = TraceEvent extends infer E ? (E extends TraceEvent ? Omit<E, 'line'> : never) : never;

export interface Settings {
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
  readonly revisits: boolean;
  readonly distinctSearches: boolean;
  readonly distinctLookups: boolean;
  readonly model: string;
  readonly start: number;
}

export const CODING_FILES = [
  'src/domain/account.ts',
  'src/domain/entry.ts',
  'src/domain/posting.ts',
  'src/domain/balance.ts',
  'src/domain/money.ts',
  'src/domain/currency.ts',
  'src/domain/ledger.ts',
  'src/domain/period.ts',
  'src/store/pool.ts',
  'src/store/accounts-repo.ts',
  'src/store/postings-repo.ts',
  'src/store/tx.ts',
  'src/http/server.ts',
  'src/http/routes.ts',
  'src/http/errors.ts',
  'src/http/validate.ts',
  'src/jobs/reconcile.ts',
  'src/jobs/webhook-retry.ts',
  'src/errors.ts',
  'src/config.ts',
  'test/domain/posting.test.ts',
  'test/domain/balance.test.ts',
  'test/domain/money.test.ts',
  'test/http/routes.test.ts',
  'test/jobs/reconcile.test.ts',
  'migrations/0001_init.sql',
  'migrations/0002_periods.sql',
  'migrations/0003_webhooks.sql',
  'README.md',
  'docs/api.md',
  'package.json',
  'tsconfig.json',
];
const HUGE_FILES = ['test/fixtures/accounts-snapshot.json', 'logs/reconcile-2026-03-01.log'];
export const ROOT = '/home/agent/projects/ledger-service';

export const TOPICS: readonly (readonly [string, string, readonly string[]])[] = [
  [
    'caching',
    'How prompt caching is priced and when cache entries expire',
    ['docs.anthropic.com', 'platform.openai.com', 'ai.google.dev', 'news.ycombinator.com'],
  ],
  ['databases', 'Why logical replication lag grows under bulk updates', ['www.postgresql.org', 'aws.amazon.com', 'www.crunchydata.com', 'stackoverflow.com']],
  ['vectors', 'Which vector index to pick for 50M embeddings with filters', ['ann-benchmarks.com', 'github.com', 'qdrant.tech', 'weaviate.io', 'arxiv.org']],
  [
    'policy',
    'What the AI Act requires from providers of general-purpose models',
    ['eur-lex.europa.eu', 'digital-strategy.ec.europa.eu', 'www.euractiv.com', 'artificialintelligenceact.eu'],
  ],
];

export const CODING_PROMPTS = [
  'The reconciliation job reports a mismatch for merchants with refunds in a closed period. Find out why and fix it; add a test.',
  'Add a `reverse` posting kind: it must reference the original posting, be balanced, and be rejected in closed periods. Update the API and docs.',
  'Tests in test/domain/balance.test.ts started failing after the money refactor. Please fix them without changing the public API.',
  'The webhook retry worker sometimes sends the same event twice. Can you find the race and make it idempotent?',
  'Rename `amount` to `amountMinor` across the domain layer and the repositories, keeping the wire format unchanged.',
];
export const FOLLOW_UPS = [
  'Thanks. Can you also run the integration tests and tell me if anything else broke?',
  'Looks good. Now add the same check to the transfer endpoint.',
  'The CI typecheck still fails on my machine, see if you can reproduce.',
  'Please also update docs/api.md with the new error code.',
  'One more thing: the error message should say which account was closed.',
  'ok, commit this with a good message',
  'Hmm, that changed the rounding for JPY. Please keep zero-decimal currencies as they were.',
];
export const RESEARCH_FOLLOW_UPS = [
  'Can you double-check the numbers against the primary source?',
  'Good. Write the findings to a notes file with the sources at the end.',
  'What changed in the last release? Look for a changelog.',
  'Compare that with the two main alternatives, briefly.',
];

interface FileState {
  content: string;
  /** tool_use id of the latest successful full read still visible, and whether the file changed since. */
  lastRead?: { id: string; stale: boolean };
  /** Request index of the latest successful read (full or partial), and of the latest edit. */
  readAt?: number;
  editedAt?: number;
}

/** Mutable generator state for one session. */
export class GeneratedSession {
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
  /** Files read in the round being built: a response never reads one file twice. */
  readonly roundPaths = new Set<string>();
  /** Files successfully read (full or partial), newest first, without repeats: what an Edit goes back to. */
  readLog: string[] = [];
  /** The file edited last (an agent often makes several edits to one file in a row). */
  lastEdited: string | undefined;
  /** The test command run last, and whether a file was edited since (a fix: the same command is re-run). */
  lastTest: string | undefined;
  editedSinceTest = false;
  /** Web search queries issued so far (with `distinctSearches`, a query is not asked twice by chance). */
  readonly queries = new Set<string>();
  /** Edit and Write calls so far, and per lookup (tool and arguments) how many there were when it was last made. */
  writes = 0;
  readonly lookups = new Map<string, number>();

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

  /** Whether `c` is a lookup that repeats an earlier one while nothing was written since (a re-run with nothing changed). */
  unchangedRepeat(c: Call): boolean {
    return LOOKUPS.has(c.use.name) && this.lookups.get(lookupKey(c)) === this.writes;
  }

  /** Notes the calls of a round: its writes, and its lookups with the writes they saw. */
  record(calls: readonly Call[]): void {
    for (const c of calls) {
      if (c.use.name === 'Edit' || c.use.name === 'Write') this.writes++;
      else if (LOOKUPS.has(c.use.name)) this.lookups.set(lookupKey(c), this.writes);
    }
  }

  touch(path: string): void {
    this.hot = [path, ...this.hot.filter((p) => p !== path)].slice(0, 5);
  }
}

/** Tools whose calls look something up in the workspace (what `distinctLookups` keeps from repeating by chance). */
const LOOKUPS = new Set(['Bash', 'Grep', 'Glob']);

function lookupKey(c: Call): string {
  return `${c.use.name}${JSON.stringify(c.use.input)}`;
}

export interface Call {
  readonly use: ToolUseBlockParam;
  readonly result: TraceToolResult;
  readonly hide?: { id: string; note: string };
}

// ---------------------------------------------------------------- tool calls

function call(ss: GeneratedSession, name: string, input: Record<string, unknown>, content: string, durationMs: number, isError = false): Call {
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

function readCall(ss: GeneratedSession, path: string, huge = false): Call {
  const { rng, s } = ss;
  const abs = `${ROOT}/${path}`;
  ss.roundPaths.add(path);
  if (!huge && rng.chance(s.errorRate)) {
    const wrong = abs.replace(/\.ts$/, 's.ts').replace(/\.md$/, '.markdown');
    return call(
      ss,
      'Read',
      { file_path: wrong },
      `<tool_use_error>File does not exist. Current working directory: ${ROOT}</tool_use_error>`,
      rng.int(1, 6),
      true,
    );
  }
  const f = ss.file(path);
  const lines = f.content.split('\n').length;
  if (!huge) {
    ss.touch(path);
    f.readAt = ss.requests;
    ss.readLog = [path, ...ss.readLog.filter((p) => p !== path)].slice(0, 12);
  }
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

function editCall(ss: GeneratedSession): Call {
  const { rng, s } = ss;
  const path = (s.revisits ? editTarget(ss) : ss.hot.find((p) => !p.endsWith('.json'))) ?? rng.pick(CODING_FILES.slice(0, 20));
  const f = ss.file(path);
  const abs = `${ROOT}/${path}`;
  const lines = f.content.split('\n');
  const candidates = lines.map((l, i) => [l, i] as const).filter(([l]) => l.trim().length > 18 && f.content.indexOf(l) === f.content.lastIndexOf(l));
  if (candidates.length === 0 || rng.chance(s.errorRate)) {
    const old = `  ${C.ident(rng)}(${rng.pick(C.NOUNS)});`;
    return call(
      ss,
      'Edit',
      { file_path: abs, old_string: old, new_string: old.replace('(', '(ctx, ') },
      `<tool_use_error>String to replace not found in file.\nString: ${old}</tool_use_error>`,
      rng.int(2, 10),
      true,
    );
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
  f.editedAt = ss.requests;
  ss.lastEdited = path;
  ss.editedSinceTest = true;
  ss.modified.add(path);
  ss.touch(path);
  const snippet = C.numbered(f.content, Math.max(1, index - 1), rng.int(3, 6));
  return call(
    ss,
    'Edit',
    { file_path: abs, old_string: oldString, new_string: newString },
    rng.chance(0.75)
      ? `The file ${abs} has been updated successfully.`
      : `The file ${abs} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
    rng.int(3, 40),
  );
}

/**
 * The file an Edit changes: an agent edits what it has read, usually the file
 * it read last, often one it read a few rounds before (it read the caller, then
 * the callee, and edits both), and it makes several edits to one file in a row.
 * Ranks in the read log (newest first) weigh 55, 20, 10, 6, 4, 3, 1, 1.
 */
function editTarget(ss: GeneratedSession): string | undefined {
  const { rng } = ss;
  const editable = (p: string) => !p.endsWith('.json') && !p.endsWith('.log');
  if (ss.lastEdited && rng.chance(0.3)) return ss.lastEdited;
  const log = ss.readLog.filter(editable).slice(0, 8);
  if (log.length === 0) return ss.hot.find(editable);
  const weights = [55, 20, 10, 6, 4, 3, 1, 1];
  return rng.weighted(log.map((p, i) => [p, weights[i]!] as [string, number]));
}

function writeCall(ss: GeneratedSession): Call {
  const { rng } = ss;
  const path =
    ss.s.flavor === 'research'
      ? `${ss.topic[0]}-${rng.pick(['findings', 'sources', 'comparison', 'summary'])}.md`
      : `test/${rng.pick(['domain', 'http', 'jobs'])}/${rng.pick(C.NOUNS)}-${rng.pick(C.VERBS)}.test.ts`;
  const content = ss.s.flavor === 'research' ? C.markdownPage(rng, ss.topic[0], ss.topic[1], rng.int(800, 3500)) : C.sourceFile(rng, path, rng.int(600, 2800));
  ss.files.set(path, { content });
  ss.modified.add(path);
  const abs = `${ss.s.flavor === 'research' ? '/home/agent/notes' : ROOT}/${path}`;
  return call(ss, 'Write', { file_path: abs, content }, `File created successfully at: ${abs}`, rng.int(3, 30));
}

function globCall(ss: GeneratedSession): Call {
  const { rng } = ss;
  const dir = rng.pick(['src', 'src/domain', 'test', 'src/http', 'migrations']);
  const pattern = rng.pick([`${dir}/**/*.ts`, '**/*.test.ts', `${dir}/**/*`, '**/*.sql', '**/*.md']);
  const ext = pattern.slice(pattern.lastIndexOf('.'));
  let hits = CODING_FILES.filter((p) => (pattern.startsWith('**') || p.startsWith(dir)) && (ext === '.*' || ext.endsWith('*') || p.endsWith(ext)));
  if (hits.length === 0) hits = rng.sample(CODING_FILES, 3);
  return call(ss, 'Glob', { pattern }, hits.map((p) => `${ROOT}/${p}`).join('\n'), rng.int(8, 160));
}

function grepCall(ss: GeneratedSession): Call {
  const { rng } = ss;
  const pattern = rng.pick([
    C.ident(rng),
    `${rng.pick(C.NOUNS)}Id`,
    `LedgerError\\('${rng.pick(['closed_period', 'unbalanced_posting', 'unknown_account'])}'`,
    `function ${rng.pick(C.VERBS)}\\w+`,
  ]);
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
    const l = `${ROOT}/${p}:${rng.int(1, 400)}:${
      C.sourceFile(rng, p, 60)
        .split('\n')
        .find((x) => x.trim().length > 10) ?? pattern
    }`;
    out.push(l);
    len += l.length + 1;
  }
  return call(ss, 'Grep', { pattern, path: ROOT, glob: '*.ts', output_mode: 'content', '-n': true }, out.join('\n'), rng.int(20, 600));
}

function bashCall(ss: GeneratedSession, phase: number, huge?: readonly [number, number]): Call {
  const { rng, s } = ss;
  if (s.flavor === 'research' && huge === undefined) {
    const notes = [...ss.modified];
    return rng.chance(0.5)
      ? call(
          ss,
          'Bash',
          { command: 'ls -la', description: 'List the notes directory' },
          [
            `total ${4 * (notes.length + 2)}`,
            ...notes.map(
              (p) =>
                `-rw-r--r--  1 agent agent ${String(rng.int(900, 9000)).padStart(5)} Mar  ${rng.int(1, 9)} ${rng.int(10, 18)}:${String(rng.int(0, 59)).padStart(2, '0')} ${p}`,
            ),
          ].join('\n'),
          rng.int(5, 30),
        )
      : call(
          ss,
          'Bash',
          { command: 'wc -w *.md', description: 'Count words in the notes' },
          [...notes.map((p) => `${String(rng.int(150, 2400)).padStart(6)} ${p}`), `${String(rng.int(400, 6000)).padStart(6)} total`].join('\n'),
          rng.int(5, 30),
        );
  }
  if (huge) {
    const target = rng.int(huge[0], huge[1]);
    return call(
      ss,
      'Bash',
      { command: 'cat logs/reconcile-2026-03-01.log', description: "Show yesterday's reconciliation log" },
      C.buildLog(rng, target),
      rng.int(40, 900),
    );
  }
  const tests = rng.sample(
    CODING_FILES.filter((p) => p.endsWith('.test.ts')),
    rng.int(3, 5),
  );
  const kind = rng.weighted<string>(
    phase < 0.3
      ? [
          ['status', 3],
          ['log', 2],
          ['ls', 2],
          ['test', 2],
          ['quiet', 2],
        ]
      : [
          ['test', 4],
          ['typecheck', 3],
          ['lint', 1],
          ['status', 1],
          ['diff', 1],
          ['quiet', 3],
        ],
  );
  switch (kind) {
    case 'test': {
      const failing = rng.chance(phase < 0.8 ? 0.5 : 0.15) ? 1 : 0;
      const out = C.testRun(rng, tests, failing);
      // After a fix, the agent re-runs the command that failed.
      const command =
        s.revisits && ss.lastTest !== undefined && ss.editedSinceTest && rng.chance(0.85)
          ? ss.lastTest
          : rng.pick(['npm test', 'npx vitest run test/domain', 'npm test -- --reporter=dot']);
      ss.lastTest = command;
      ss.editedSinceTest = false;
      return call(ss, 'Bash', { command, description: 'Run the unit tests' }, failing ? `Exit code 1\n${out}` : out, rng.logNormal(3500, 0.6), failing === 1);
    }
    case 'typecheck': {
      const n = rng.chance(0.4) ? rng.int(1, 6) : 0;
      const out = `\n> ledger-service@0.4.2 typecheck\n> tsc --noEmit\n${n ? `\n${C.typecheck(rng, CODING_FILES.slice(0, 20), n)}` : ''}`;
      return call(
        ss,
        'Bash',
        { command: 'npm run typecheck', description: 'Type-check the project' },
        n ? `Exit code 2\n${out}` : out,
        rng.logNormal(4200, 0.4),
        n > 0,
      );
    }
    case 'quiet': {
      const [command, description, out] = rng.pick([
        [`mkdir -p test/${rng.pick(['domain', 'jobs', 'http'])}`, 'Create the test directory', ''],
        ['npm run build', 'Build the project', '\n> ledger-service@0.4.2 build\n> tsc -p tsconfig.build.json\n'],
        [
          `git add -A && git commit -m "${C.cap(rng.pick(C.VERBS))} ${rng.pick(C.NOUNS)} ${rng.pick(['handling', 'validation'])}"`,
          'Commit the change',
          `[fix/${rng.pick(C.NOUNS)} ${rng.chars(7, '0123456789abcdef')}] ${C.cap(rng.pick(C.VERBS))} ${rng.pick(C.NOUNS)} handling\n ${rng.int(1, 6)} files changed, ${rng.int(3, 90)} insertions(+), ${rng.int(0, 30)} deletions(-)`,
        ],
        ['node --version && npm --version', 'Check tool versions', 'v20.20.2\n10.8.2'],
        [
          `wc -l src/domain/*.ts`,
          'Count lines in the domain layer',
          CODING_FILES.filter((p) => p.startsWith('src/domain'))
            .map((p) => `${String(rng.int(20, 400)).padStart(5)} ${p}`)
            .join('\n'),
        ],
      ] as const);
      return call(ss, 'Bash', { command, description }, out, rng.int(20, 2500));
    }
    case 'lint':
      return call(
        ss,
        'Bash',
        { command: 'npm run lint', description: 'Lint with biome' },
        `\n> ledger-service@0.4.2 lint\n> biome check src test\n\nChecked ${rng.int(40, 90)} files in ${rng.int(20, 90)}ms. No fixes applied.`,
        rng.int(300, 1500),
      );
    case 'log': {
      const lines = Array.from(
        { length: rng.int(5, 12) },
        () =>
          `${rng.chars(7, '0123456789abcdef')} ${C.cap(rng.pick(C.VERBS))} ${rng.pick(C.NOUNS)} ${rng.pick(['handling', 'validation', 'retries', 'rounding', 'queries'])}`,
      );
      return call(ss, 'Bash', { command: 'git log --oneline -12', description: 'Show recent commits' }, lines.join('\n'), rng.int(10, 60));
    }
    case 'ls': {
      const dir = rng.pick(['src/domain', 'src/store', 'test', 'migrations']);
      const entries = CODING_FILES.filter((p) => p.startsWith(dir)).map(
        (p) =>
          `-rw-r--r--  1 agent agent ${String(rng.int(300, 9000)).padStart(5)} Mar  ${rng.int(1, 9)} ${rng.int(10, 18)}:${String(rng.int(0, 59)).padStart(2, '0')} ${p.slice(dir.length + 1)}`,
      );
      return call(
        ss,
        'Bash',
        { command: `ls -la ${dir}`, description: `List files in ${dir}` },
        [`total ${rng.int(20, 90)}`, 'drwxr-xr-x  2 agent agent  4096 Mar  2 09:12 .', 'drwxr-xr-x  9 agent agent  4096 Mar  2 09:12 ..', ...entries].join(
          '\n',
        ),
        rng.int(5, 30),
      );
    }
    case 'diff': {
      const files = [...ss.modified].slice(0, 6);
      const body = files.length
        ? `${files.map((p) => ` ${p.padEnd(32)} | ${String(rng.int(1, 40)).padStart(3)} ${'+'.repeat(rng.int(1, 12))}${'-'.repeat(rng.int(0, 6))}`).join('\n')}\n ${files.length} files changed, ${rng.int(5, 120)} insertions(+), ${rng.int(0, 40)} deletions(-)`
        : '';
      return call(ss, 'Bash', { command: 'git diff --stat', description: 'Show changed files' }, body, rng.int(10, 80));
    }
    default: {
      const mod = [...ss.modified].slice(0, 6);
      const body = `On branch fix/${rng.pick(C.NOUNS)}-${rng.pick(C.VERBS)}\n${mod.length ? `Changes not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n${mod.map((p) => `\tmodified:   ${p}`).join('\n')}\n\nno changes added to commit (use "git add" and/or "git commit -a")` : 'nothing to commit, working tree clean'}`;
      return call(ss, 'Bash', { command: 'git status', description: 'Show working tree status' }, body, rng.int(10, 60));
    }
  }
}

function searchCall(ss: GeneratedSession): Call {
  const { rng } = ss;
  const [topic, question, domains] = ss.topic;
  const draw = (): string =>
    `${question.split(' ').slice(rng.int(0, 2), rng.int(5, 9)).join(' ').toLowerCase()} ${rng.pick(['2026', 'benchmark', 'documentation', 'pricing', 'explained', ''])}`.trim();
  let query = draw();
  if (ss.s.distinctSearches) {
    // The drawn queries come from a few dozen word spans: a long session repeats one by chance, while the earlier
    // result is in view, which agents do not do. A repeat is refined the way an agent narrows a search instead.
    for (let n = 0; ss.queries.has(query) && n < 8; n++) query = draw();
    while (ss.queries.has(query)) query = `${query} ${rng.pick(C.NOUNS)}`;
    ss.queries.add(query);
  }
  const links = Array.from({ length: rng.int(3, 8) }, () => {
    const d = rng.pick(domains);
    return {
      title: `${C.cap(rng.pick(C.TOPIC_WORDS[topic] ?? C.NOUNS).replace(/^(the|a|each) /, ''))}: ${rng.pick(['a practical guide', 'what changed in 2026', 'benchmarks and trade-offs', 'frequently asked questions', 'release notes', 'design notes', 'a deep dive'])}`,
      url: `https://${d}/${rng.pick(['docs', 'blog', 'en', 'questions', 'abs'])}/${rng.chars(rng.int(6, 14), 'abcdefghijklmnopqrstuvwxyz-')}`,
    };
  });
  const summary = Array.from({ length: rng.int(0, 3) }, () => C.sentence(rng, topic)).join(' ');
  return call(
    ss,
    'WebSearch',
    { query },
    `Web search results for query: "${query}"\n\nLinks: ${JSON.stringify(links)}\n\n${summary}`,
    rng.logNormal(1800, 0.4),
  );
}

function fetchCall(ss: GeneratedSession, huge?: readonly [number, number]): Call {
  const { rng, s } = ss;
  const [topic, question, domains] = ss.topic;
  const url = `https://${rng.pick(domains)}/${rng.pick(['docs', 'blog', 'en/latest', 'guides'])}/${rng.chars(rng.int(6, 18), 'abcdefghijklmnopqrstuvwxyz-')}`;
  const input = {
    url,
    prompt: rng.pick([
      `Extract what this page says about ${question.toLowerCase()}`,
      'Summarize the key numbers and their dates',
      'List the limits and prices mentioned, with units',
      'Return the full text of the relevant section',
    ]),
  };
  if (!huge && rng.chance(s.errorRate))
    return call(ss, 'WebFetch', input, `Request failed with status code ${rng.pick([403, 404, 429, 500])}`, rng.int(200, 3000), true);
  // Most fetch tools return a model-written digest of the page; some return the raw page.
  const raw = huge !== undefined || rng.chance(0.2);
  const target = huge ? rng.int(huge[0], huge[1]) : raw ? ss.size(5000, 1.2, 800, 60_000) : ss.size(450, 0.8, 120, 8000);
  const title = C.sentence(rng, topic).replace(/\.$/, '');
  const body = !raw
    ? C.markdownPage(rng, topic, title, target).split('\n').slice(4).join('\n')
    : rng.chance(0.4)
      ? C.htmlPage(rng, topic, title, target)
      : C.markdownPage(rng, topic, title, target);
  const c = call(ss, 'WebFetch', input, body, rng.logNormal(2500, 0.6) + target / 400);
  return body.length > 40_000 && s.hides ? { ...c, hide: { id: c.use.id, note: `page skimmed; the relevant section is in notes/${topic}-sources.md` } } : c;
}

function todoCall(ss: GeneratedSession): Call {
  const { rng } = ss;
  const n = rng.int(3, 6);
  const done = rng.int(0, n - 1);
  const todos = Array.from({ length: n }, (_, i) => {
    const v = C.cap(rng.pick(C.VERBS));
    const what = `${rng.pick(C.NOUNS)} ${rng.pick(['handling', 'validation', 'tests', 'docs'])}`;
    return {
      content: `${v} ${what}`,
      status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
      activeForm: `${v.replace(/e$/, '')}ing ${what}`,
    };
  });
  return call(
    ss,
    'TodoWrite',
    { todos },
    'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable',
    rng.int(1, 6),
  );
}

/** The calls of one tool round. */
export function roundCalls(ss: GeneratedSession, round: number, rounds: number): Call[] {
  const calls = drawRoundCalls(ss, round, rounds);
  ss.record(calls);
  return calls;
}

function drawRoundCalls(ss: GeneratedSession, round: number, rounds: number): Call[] {
  const { rng, s } = ss;
  const phase = rounds <= 1 ? 0 : round / (rounds - 1);
  const index = ss.requests;
  ss.roundPaths.clear();
  // A chosen index may fall on a final (answer) round; the event then happens in the next tool round.
  const due = (set: Set<number>) => {
    const hit = [...set].find((i) => i <= index);
    if (hit !== undefined) set.delete(hit);
    return hit !== undefined;
  };
  if (due(ss.fanoutAt)) {
    const n = rng.int(s.fanoutMin, s.fanoutMax);
    if (s.flavor === 'research') return Array.from({ length: n }, () => (rng.chance(0.5) ? searchCall(ss) : fetchCall(ss)));
    const more = C.NOUNS.flatMap((noun) => [`src/domain/${noun}-rules.ts`, `src/store/${noun}s-repo.ts`]);
    const paths = rng.sample([...CODING_FILES.filter((p) => p.endsWith('.ts')), ...more], n);
    return paths.map((p) => (rng.chance(0.85) ? readCall(ss, p) : grepCall(ss)));
  }
  if (due(ss.hugeAt)) {
    const range = [s.hugeMin, 870_000] as const;
    if (s.flavor === 'research') return [fetchCall(ss, range)];
    return [rng.chance(0.5) ? readCall(ss, HUGE_FILES[0]!, true) : bashCall(ss, phase, range)];
  }
  const n = rng.weighted([
    [1, 62],
    [2, 24],
    [3, 10],
    [4, 3],
    [5, 1],
  ] as const);
  const calls: Call[] = [];
  for (let i = 0; i < n; i++) {
    if (rng.chance(s.hugeRate)) {
      const range = [50_000, 200_000] as const;
      calls.push(s.flavor === 'research' ? fetchCall(ss, range) : bashCall(ss, phase, range));
      continue;
    }
    const draw = () => (s.flavor === 'research' ? researchAction(ss, phase, round) : codingAction(ss, phase, round));
    const before = { lastTest: ss.lastTest, editedSinceTest: ss.editedSinceTest };
    let next = draw();
    for (let n = 0; s.distinctLookups && n < 8 && ss.unchangedRepeat(next); n++) {
      // The repeat is not made: undo what drawing it noted (a test run), then draw another action.
      ss.lastTest = before.lastTest;
      ss.editedSinceTest = before.editedSinceTest;
      next = draw();
    }
    // A model does not issue the same call twice in one response.
    const key = `${next.use.name}${JSON.stringify(next.use.input)}`;
    if (calls.some((c) => `${c.use.name}${JSON.stringify(c.use.input)}` === key)) continue;
    calls.push(next);
    // Parallel calls are independent: an Edit is issued alone.
    if (calls[calls.length - 1]!.use.name === 'Edit' || calls[calls.length - 1]!.use.name === 'TodoWrite') break;
  }
  return calls;
}

function codingAction(ss: GeneratedSession, phase: number, round: number): Call {
  const { rng } = ss;
  const reread = () => {
    const hot = ss.hot.filter((p) => !ss.roundPaths.has(p));
    let path = hot.length > 0 && rng.chance(0.55) ? rng.pick(hot) : rng.pick(CODING_FILES.filter((p) => !ss.roundPaths.has(p)));
    // A file read in the last few rounds and not changed since is still in view: mostly the agent reads
    // something else (it does re-read one now and then; after an edit, a re-read checks the change).
    const f = ss.s.revisits ? ss.files.get(path) : undefined;
    if (f?.readAt !== undefined && ss.requests - f.readAt <= 4 && (f.editedAt ?? -1) < f.readAt && rng.chance(0.7)) {
      const other = CODING_FILES.filter((p) => !ss.roundPaths.has(p) && !ss.hot.includes(p));
      if (other.length > 0) path = rng.pick(other);
    }
    return readCall(ss, path);
  };
  const table: [() => Call, number][] =
    phase < 0.3
      ? [
          [reread, 34],
          [() => grepCall(ss), 20],
          [() => globCall(ss), 10],
          [() => bashCall(ss, phase), 12],
          [() => todoCall(ss), round === 0 ? 25 : 2],
          [() => editCall(ss), ss.hot.length ? 6 : 0],
        ]
      : phase < 0.75
        ? [
            [reread, 26],
            [() => editCall(ss), 34],
            [() => grepCall(ss), 10],
            [() => bashCall(ss, phase), 16],
            [() => writeCall(ss), 3],
            [() => todoCall(ss), 4],
          ]
        : [
            [() => bashCall(ss, phase), 42],
            [reread, 20],
            [() => editCall(ss), 26],
            [() => todoCall(ss), 8],
            [() => grepCall(ss), 4],
          ];
  return rng.weighted(table)();
}

function researchAction(ss: GeneratedSession, phase: number, _round: number): Call {
  const { rng } = ss;
  const table: [() => Call, number][] =
    phase < 0.3
      ? [
          [() => searchCall(ss), 45],
          [() => fetchCall(ss), 40],
          [() => todoCall(ss), 15],
        ]
      : phase < 0.75
        ? [
            [() => fetchCall(ss), 45],
            [() => searchCall(ss), 20],
            [() => writeCall(ss), 10],
            [() => todoCall(ss), 8],
            [() => bashCall(ss, phase), 10],
          ]
        : [
            [() => writeCall(ss), 25],
            [() => fetchCall(ss), 35],
            [() => searchCall(ss), 20],
            [() => readCall(ss, rng.pick(['README.md', 'docs/api.md', 'docs/notes.md'].filter((p) => !ss.roundPaths.has(p)))), 10],
          ];
  return rng.weighted(table)();
}

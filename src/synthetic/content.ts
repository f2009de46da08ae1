/**
 * Deterministic synthetic content for generated traces: source files, cat -n
 * listings, test/compiler/git output, web pages, search results, thinking.
 * Everything is built from small phrase pools with a seeded {@link Rng}, so it
 * looks like real agent traffic (code-shaped lines, log lines, prose, HTML)
 * while staying reproducible byte for byte.
 */
import { BASE64, type Rng } from './rng.js';

// ---------------------------------------------------------------- pools

const NOUNS = [
  'account',
  'entry',
  'posting',
  'balance',
  'ledger',
  'currency',
  'amount',
  'merchant',
  'payout',
  'refund',
  'webhook',
  'journal',
  'transfer',
  'statement',
  'invoice',
  'period',
  'snapshot',
  'cursor',
  'batch',
  'limit',
];
const VERBS = [
  'create',
  'load',
  'apply',
  'validate',
  'compute',
  'reconcile',
  'format',
  'parse',
  'post',
  'reverse',
  'settle',
  'list',
  'find',
  'close',
  'open',
  'retry',
  'schedule',
  'normalize',
  'merge',
  'split',
];
const TYPES = [
  'string',
  'number',
  'bigint',
  'boolean',
  'Date',
  'AccountId',
  'Money',
  'Currency',
  'readonly Entry[]',
  'PostingKind',
  'Cursor | null',
  'Map<string, bigint>',
];
const CODES = ['unbalanced_posting', 'unknown_account', 'currency_mismatch', 'closed_period', 'duplicate_key', 'negative_amount', 'not_found', 'conflict'];

const cap = (s: string) => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1));
const camel = (a: string, b: string) => a + cap(b);

function ident(rng: Rng): string {
  return camel(rng.pick(VERBS), rng.pick(NOUNS));
}

// ---------------------------------------------------------------- source files

function tsChunk(rng: Rng): string[] {
  const noun = rng.pick(NOUNS);
  switch (
    rng.weighted<string>([
      ['fn', 5],
      ['iface', 3],
      ['const', 1],
      ['class', 1],
    ])
  ) {
    case 'iface': {
      const lines = [`/** A ${noun} as the domain layer sees it. */`, `export interface ${cap(noun)}${rng.pick(['', 'Row', 'Input', 'View'])} {`];
      for (let i = rng.int(3, 8); i > 0; i--)
        lines.push(
          `  readonly ${camel(rng.pick(NOUNS), rng.pick(['Id', 'At', 'Minor', 'Count', 'Kind', '']))}${rng.chance(0.2) ? '?' : ''}: ${rng.pick(TYPES)};`,
        );
      lines.push('}', '');
      return lines;
    }
    case 'const':
      return [
        `const ${rng.pick(['MAX', 'DEFAULT', 'MIN'])}_${noun.toUpperCase()}_${rng.pick(['COUNT', 'AGE_MS', 'BATCH', 'RETRIES'])} = ${rng.int(2, 500) * rng.pick([1, 10, 1000])};`,
        '',
      ];
    case 'class': {
      const name = `${cap(noun)}${rng.pick(['Repository', 'Service', 'Cache', 'Worker'])}`;
      const lines = [`export class ${name} {`, `  readonly #pool: Pool;`, `  constructor(pool: Pool) {`, `    this.#pool = pool;`, '  }', ''];
      for (let i = rng.int(1, 3); i > 0; i--) {
        const m = ident(rng);
        lines.push(`  async ${m}(id: ${cap(noun)}Id): Promise<${cap(noun)} | undefined> {`);
        lines.push(`    const { rows } = await this.#pool.query<${cap(noun)}Row>(`);
        lines.push(`      'select * from ${noun}s where id = $1${rng.chance(0.4) ? ' and closed_at is null' : ''}',`);
        lines.push('      [id],', '    );', `    return rows[0] && to${cap(noun)}(rows[0]);`, '  }', '');
      }
      lines.push('}', '');
      return lines;
    }
    default: {
      const name = ident(rng);
      const arg = rng.pick(NOUNS);
      const lines: string[] = [];
      if (rng.chance(0.5))
        lines.push(
          `/** ${cap(rng.pick(VERBS))}s the ${arg} ${rng.pick(['and returns the new balance', 'without touching the store', 'for the given period', 'in minor units'])}. */`,
        );
      lines.push(`export function ${name}(${arg}: ${cap(arg)}, ${rng.pick(NOUNS)}: ${rng.pick(TYPES)}): ${rng.pick(TYPES)} {`);
      for (let i = rng.int(2, 9); i > 0; i--) {
        const v = rng.pick(NOUNS);
        lines.push(
          rng.pick([
            `  const ${v}s = ${arg}.entries.filter((e) => e.${rng.pick(NOUNS)}Id === ${arg}.id);`,
            `  if (${arg}.${rng.pick(NOUNS)} === undefined) throw new LedgerError('${rng.pick(CODES)}', \`${arg} \${${arg}.id} has no ${v}\`);`,
            `  const total = ${v}s.reduce((sum, e) => sum + e.amountMinor, 0n);`,
            `  // ${cap(rng.pick(VERBS))} before ${rng.pick(VERBS)}ing: the ${v} may be ${rng.pick(['stale', 'closed', 'partial', 'reversed'])}.`,
            `  for (const ${v} of ${arg}.${v}s) ${rng.pick(VERBS)}${cap(v)}(${v}, ${rng.pick(['ctx', 'now', 'opts', 'tx'])});`,
            `  log.debug({ ${v}Id: ${v}.id, ${arg}Id: ${arg}.id }, '${rng.pick(VERBS)} ${v}');`,
            `  const ${v} = await ${rng.pick(['repo', 'tx', 'store'])}.${ident(rng)}(${arg}.id);`,
          ]),
        );
      }
      lines.push(`  return ${rng.pick([`{ ...${arg}, updatedAt: now }`, 'total', `${arg}.id`, `${rng.pick(VERBS)}${cap(arg)}(${arg})`])};`, '}', '');
      return lines;
    }
  }
}

function sqlChunk(rng: Rng): string[] {
  const t = `${rng.pick(NOUNS)}s`;
  const lines = [`create table if not exists ${t} (`, '  id uuid primary key default gen_random_uuid(),'];
  for (let i = rng.int(3, 7); i > 0; i--)
    lines.push(
      `  ${rng.pick(NOUNS)}_${rng.pick(['id', 'minor', 'at', 'kind', 'code'])} ${rng.pick(['uuid not null', 'bigint not null', 'timestamptz', 'text not null', "char(3) not null default 'EUR'"])},`,
    );
  lines.push('  created_at timestamptz not null default now()', ');', `create index on ${t} (${rng.pick(NOUNS)}_id, created_at);`, '');
  return lines;
}

function mdChunk(rng: Rng): string[] {
  return [
    `## ${cap(rng.pick(VERBS))} ${rng.pick(NOUNS)}s`,
    '',
    `${sentence(rng, 'ledger')} ${sentence(rng, 'ledger')}`,
    '',
    `- \`${ident(rng)}\`: ${sentence(rng, 'ledger')}`,
    `- \`${ident(rng)}\`: ${sentence(rng, 'ledger')}`,
    '',
  ];
}

function jsonChunk(rng: Rng): string[] {
  const n = rng.pick(NOUNS);
  return [
    `  {"id": "${n}_${rng.chars(10, '0123456789abcdef')}", "${rng.pick(NOUNS)}Minor": ${rng.int(0, 999999)}, "currency": "${rng.pick(['EUR', 'USD', 'GBP'])}", "status": "${rng.pick(['open', 'settled', 'reversed'])}"},`,
  ];
}

const STATIC: Record<string, string> = {
  'package.json': JSON.stringify(
    {
      name: 'ledger-service',
      version: '0.4.2',
      private: true,
      type: 'module',
      scripts: {
        dev: 'tsx watch src/http/server.ts',
        build: 'tsc -p tsconfig.build.json',
        test: 'vitest run',
        'test:int': 'vitest run --config vitest.int.config.ts',
        typecheck: 'tsc --noEmit',
        lint: 'biome check src test',
      },
      dependencies: { pg: '^8.13.1', zod: '^3.24.1', pino: '^9.6.0', undici: '^7.2.0' },
      devDependencies: { '@biomejs/biome': '1.9.4', '@types/pg': '^8.11.10', tsx: '^4.19.2', typescript: '~5.7.2', vitest: '^3.0.4' },
    },
    null,
    2,
  ),
  'tsconfig.json': JSON.stringify(
    {
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        outDir: 'dist',
        rootDir: 'src',
        skipLibCheck: true,
      },
      include: ['src', 'test'],
    },
    null,
    2,
  ),
};

/** Source-like text for a path, about `target` characters long (never more than ~1 line over). */
export function sourceFile(rng: Rng, path: string, target: number): string {
  const fixed = STATIC[path];
  if (fixed !== undefined) return fixed;
  const ext = path.slice(path.lastIndexOf('.') + 1);
  const lines: string[] = [];
  let len = 0;
  const push = (ls: string[]) => {
    for (const l of ls) {
      lines.push(l);
      len += l.length + 1;
    }
  };
  if (ext === 'ts')
    push([
      `import type { Pool } from 'pg';`,
      `import { LedgerError } from '../errors.js';`,
      `import { ${ident(rng)}, ${ident(rng)} } from './${rng.pick(NOUNS)}.js';`,
      '',
    ]);
  if (ext === 'json') push(['[']);
  while (len < target) push(ext === 'sql' ? sqlChunk(rng) : ext === 'md' ? mdChunk(rng) : ext === 'json' ? jsonChunk(rng) : tsChunk(rng));
  if (ext === 'json') push(['  {}', ']']);
  return lines.join('\n');
}

/** `cat -n` style listing as file-reading tools return it (1-based, tab after the number). */
export function numbered(text: string, offset = 1, limit?: number): string {
  const lines = text.split('\n');
  const start = Math.max(offset, 1) - 1;
  const slice = lines.slice(start, limit === undefined ? undefined : start + limit);
  return slice.map((l, i) => `${String(start + i + 1).padStart(6)}\t${l}`).join('\n');
}

// ---------------------------------------------------------------- prose

export const TOPIC_WORDS: Record<string, readonly string[]> = {
  ledger: ['the posting', 'each entry', 'the balance query', 'the reconciliation job', 'the webhook worker', 'the migration', 'the API', 'a closed period'],
  caching: [
    'prompt caching',
    'the cache prefix',
    'a cache write',
    'cache reads',
    'the 5-minute TTL',
    'the 1-hour TTL',
    'the breakpoint',
    'the lookback window',
    'input tokens',
  ],
  databases: [
    'logical replication',
    'the WAL',
    'a replication slot',
    'vacuum',
    'the planner',
    'connection pooling',
    'read replicas',
    'write amplification',
    'the index',
  ],
  vectors: ['the embedding index', 'HNSW', 'recall at 10', 'quantization', 'the ANN benchmark', 'filtered search', 'p99 latency', 'the vector store'],
  policy: [
    'the regulation',
    'the transparency obligation',
    'a high-risk system',
    'the conformity assessment',
    'the provider',
    'the deployer',
    'the guidance',
    'the implementing act',
  ],
};
const VERB_PHRASES = [
  'reduces',
  'depends on',
  'is measured against',
  'changes',
  'is documented alongside',
  'interacts with',
  'is limited by',
  'scales with',
  'was introduced to replace',
  'is billed separately from',
];
const TAILS = [
  'in most deployments',
  'according to the documentation',
  'since the 2025 release',
  'under sustained load',
  'for workloads above a few thousand requests per minute',
  'unless configured otherwise',
  'in the default configuration',
  'as the benchmark section shows',
  'which surprised several reviewers',
  'by roughly an order of magnitude',
];

/** One plausible sentence about a topic. */
export function sentence(rng: Rng, topic: string): string {
  const words = TOPIC_WORDS[topic] ?? TOPIC_WORDS.ledger!;
  const a = rng.pick(words);
  const b = rng.pick(words);
  return `${cap(a)} ${rng.pick(VERB_PHRASES)} ${b} ${rng.pick(TAILS)}.`;
}

function paragraph(rng: Rng, topic: string): string {
  const out: string[] = [];
  for (let i = rng.int(2, 6); i > 0; i--) out.push(sentence(rng, topic));
  return out.join(' ');
}

/** A fetched page converted to markdown, about `target` characters. */
export function markdownPage(rng: Rng, topic: string, title: string, target: number): string {
  const parts = [`# ${title}`, '', `Last updated: ${rng.int(1, 28)} ${rng.pick(['January', 'March', 'June', 'September', 'November'])} 2026`, ''];
  let len = parts.join('\n').length;
  let section = 0;
  while (len < target) {
    let chunk: string;
    const kind = rng.weighted<string>([
      ['p', 6],
      ['h', 1],
      ['list', 2],
      ['table', 1],
      ['code', 1],
    ]);
    if (kind === 'h') chunk = `## ${++section}. ${cap(rng.pick(TOPIC_WORDS[topic] ?? ['Overview']))}`;
    else if (kind === 'list') chunk = Array.from({ length: rng.int(3, 6) }, () => `- ${sentence(rng, topic)}`).join('\n');
    else if (kind === 'table') {
      const rows = [`| ${cap(topic)} | Value | Change |`, '|---|---:|---:|'];
      for (let i = rng.int(3, 8); i > 0; i--)
        rows.push(`| ${rng.pick(TOPIC_WORDS[topic] ?? ['x'])} | ${rng.int(1, 9999)} | ${rng.pick(['+', '-'])}${rng.int(1, 40)}% |`);
      chunk = rows.join('\n');
    } else if (kind === 'code')
      chunk = [
        '```json',
        JSON.stringify(
          {
            [rng.pick(['index', 'cache', 'replication', 'limits'])]: {
              [rng.pick(NOUNS)]: rng.int(1, 4096),
              [rng.pick(['ttl', 'max_size', 'mode', 'window'])]: rng.pick(['5m', '1h', 'auto', String(rng.int(1, 64))]),
            },
          },
          null,
          2,
        ),
        '```',
      ].join('\n');
    else chunk = paragraph(rng, topic);
    parts.push(chunk, '');
    len += chunk.length + 2;
  }
  return parts.join('\n');
}

/** A raw HTML page, about `target` characters. */
export function htmlPage(rng: Rng, topic: string, title: string, target: number): string {
  const head = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n<link rel="stylesheet" href="/assets/site.${rng.chars(8, '0123456789abcdef')}.css">\n</head>\n<body>\n<nav class="site-nav"><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a> <a href="/pricing">Pricing</a></nav>\n<main class="content">\n<h1>${title}</h1>\n`;
  const parts = [head];
  let len = head.length;
  while (len < target) {
    const chunk = rng.chance(0.15)
      ? `<h2 id="s${rng.int(1, 99)}">${cap(rng.pick(TOPIC_WORDS[topic] ?? ['x']))}</h2>\n`
      : rng.chance(0.15)
        ? `<ul>\n${Array.from({ length: rng.int(2, 5) }, () => `  <li>${sentence(rng, topic)}</li>`).join('\n')}\n</ul>\n`
        : `<p>${paragraph(rng, topic)}</p>\n`;
    parts.push(chunk);
    len += chunk.length;
  }
  parts.push('</main>\n<footer><p>&copy; 2026. All rights reserved.</p></footer>\n</body>\n</html>');
  return parts.join('');
}

// ---------------------------------------------------------------- command output

/** vitest-style test run output. */
export function testRun(rng: Rng, files: readonly string[], failing: number): string {
  const out = ['', '> ledger-service@0.4.2 test', '> vitest run', '', ` RUN  v3.2.4 /home/agent/projects/ledger-service`, ''];
  let tests = 0;
  let failed = 0;
  files.forEach((f, i) => {
    const n = rng.int(3, 24);
    tests += n;
    if (i < failing) {
      failed += 1;
      out.push(` ❯ ${f} (${n} tests | 1 failed) ${rng.int(4, 90)}ms`);
      out.push(
        `   × ${rng.pick(NOUNS)} > ${rng.pick(['rejects', 'accepts', 'computes', 'keeps'])} ${rng.pick(NOUNS)}s ${rng.pick(['in a closed period', 'with mixed currencies', 'after a reversal', 'when the cursor is stale'])} ${rng.int(1, 40)}ms`,
      );
      out.push(`     → expected ${rng.int(0, 5000)}n to be ${rng.int(0, 5000)}n // Object.is equality`);
    } else out.push(` ✓ ${f} (${n} tests) ${rng.int(2, 120)}ms`);
  });
  if (failing > 0) {
    out.push('', '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯', '', ` FAIL  ${files[0]} > ${rng.pick(NOUNS)} > ${rng.pick(VERBS)}s the ${rng.pick(NOUNS)}`);
    out.push(`AssertionError: expected ${rng.int(0, 5000)}n to be ${rng.int(0, 5000)}n // Object.is equality`, '');
    for (let i = 0; i < 4; i++) out.push(` ❯ ${files[0]}:${rng.int(10, 300)}:${rng.int(5, 40)}`);
  }
  out.push('', ` Test Files  ${failed > 0 ? `${failed} failed | ` : ''}${files.length - failed} passed (${files.length})`);
  out.push(
    `      Tests  ${failed > 0 ? `${failed} failed | ` : ''}${tests - failed} passed (${tests})`,
    `   Start at  ${String(rng.int(8, 18)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}`,
    `   Duration  ${rng.float(0.4, 9).toFixed(2)}s`,
  );
  return out.join('\n');
}

/** `tsc --noEmit` output with `n` errors (empty when n = 0). */
export function typecheck(rng: Rng, files: readonly string[], n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      `${rng.pick(files)}(${rng.int(5, 300)},${rng.int(3, 40)}): error TS${rng.pick(['2322', '2345', '2339', '7006', '18048'])}: ${rng.pick([
        `Type '${rng.pick(TYPES)}' is not assignable to type '${rng.pick(TYPES)}'.`,
        `Property '${rng.pick(NOUNS)}Id' does not exist on type '${cap(rng.pick(NOUNS))}'.`,
        `Argument of type 'string | undefined' is not assignable to parameter of type 'string'.`,
        `'${rng.pick(NOUNS)}' is possibly 'undefined'.`,
      ])}`,
    );
  }
  if (n > 0) out.push('', `Found ${n} error${n > 1 ? 's' : ''} in ${Math.min(n, files.length)} file${n > 1 ? 's' : ''}.`);
  return out.join('\n');
}

/** A long build/CI log, about `target` characters. */
export function buildLog(rng: Rng, target: number): string {
  const out: string[] = [];
  let len = 0;
  let t = rng.int(0, 1000);
  while (len < target) {
    t += rng.int(1, 900);
    const line = `${String(Math.floor(t / 1000)).padStart(5)}.${String(t % 1000).padStart(3, '0')} ${rng.pick(['INFO ', 'INFO ', 'INFO ', 'DEBUG', 'WARN '])} [${rng.pick(['worker', 'http', 'reconcile', 'pg', 'webhook'])}] ${rng.pick(VERBS)} ${rng.pick(NOUNS)} id=${rng.pick(NOUNS)}_${rng.chars(8, '0123456789abcdef')} ${rng.pick(['ok', 'ok', 'retrying', 'skipped', `took ${rng.int(1, 900)}ms`])}`;
    out.push(line);
    len += line.length + 1;
  }
  return out.join('\n');
}

// ---------------------------------------------------------------- model output

/** An opaque thinking signature, shaped like the API's (base64). */
export function signature(rng: Rng): string {
  return `${rng.chars(4 * rng.int(80, 180), BASE64)}`;
}

/** The encrypted payload of a redacted_thinking block. */
export function redactedData(rng: Rng): string {
  return `EmwKAhgBEgy${rng.chars(4 * rng.int(100, 400), BASE64)}`;
}

export { cap, ident, NOUNS, VERBS };

/**
 * Docs that run: every TypeScript block of README.md and docs/**\/*.md is
 * extracted into its own module and typechecked against the package's public
 * entry points (`cachepoint`, `cachepoint/redis`, …, mapped to src/ exactly as
 * package.json exports them). A block must stand on its own: declare what it
 * uses (`declare const client: Anthropic`), as a reader's file would.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const OUT = join(ROOT, 'node_modules', '.cache', 'cachepoint-doc-blocks');

interface CodeBlock {
  readonly doc: string;
  /** 1-based line of the first code line in the doc. */
  readonly line: number;
  readonly code: string;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

/** Fenced blocks whose info string starts with ts / typescript. */
function extractBlocks(doc: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const out: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+|~~~+)\s*(ts|typescript)\b/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i + 1;
    let j = start;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence)) j++;
    out.push({ doc, line: start + 1, code: lines.slice(start, j).join('\n') });
    i = j;
  }
  return out;
}

/** `paths` for every export of package.json, pointing at the source file the build emits it from. */
function exportPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { types: string }> };
  const paths: Record<string, string[]> = {};
  for (const [sub, target] of Object.entries(pkg.exports)) {
    const src = target.types.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts');
    paths[sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`] = [join(ROOT, src)];
  }
  return paths;
}

const OWN = new Set(['cachepoint']);

/** Whether a bare import resolves here (our own entry points always do, through `paths`). */
function resolvable(spec: string): boolean {
  const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
  if (OWN.has(pkg) || spec.startsWith('node:')) return true;
  return existsSync(join(ROOT, 'node_modules', pkg, 'package.json'));
}

describe('TypeScript blocks in README.md and docs/ compile', () => {
  const docs = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
  const blocks = docs.flatMap((d) => extractBlocks(relative(ROOT, d), readFileSync(d, 'utf8')));

  it('finds the blocks (README shows the drop-in path first)', () => {
    expect(blocks.length).toBeGreaterThan(10);
    const readme = blocks.filter((b) => b.doc === 'README.md');
    expect(readme[0]!.code).toMatch(/\bprepare\(/);
  });

  it('typechecks every block', () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const stubs = new Set<string>();
    const files = blocks.map((b, i) => {
      const name = `${String(i).padStart(3, '0')}-${b.doc.replace(/[^a-z0-9]+/gi, '-')}-L${b.line}.ts`;
      let code = b.code;
      // A contributor's example that lives in the repo says where (`// src/import/my-log.ts`): its relative imports resolve from there.
      const home = /^\/\/ (src\/\S+\.ts)\s*$/m.exec(code.split('\n')[0] ?? '');
      if (home) code = code.replace(/(from\s+')(\.{1,2}\/[^']+)'/g, (_, from: string, spec: string) => `${from}${join(ROOT, dirname(home[1]!), spec)}'`);
      // Optional third-party clients a doc shows (ioredis, …) are not dev dependencies: typed as any when absent.
      for (const m of code.matchAll(/from\s+'([^'./][^']*)'/g)) if (!resolvable(m[1]!)) stubs.add(m[1]!);
      // Every block is its own module (top-level await allowed, no name clashes between blocks).
      writeFileSync(join(OUT, name), `${code}\nexport {};\n`);
      return { name, block: b };
    });
    writeFileSync(join(OUT, 'stubs.d.ts'), [...stubs].map((m) => `declare module '${m}';`).join('\n'));
    const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    const tsconfig = {
      compilerOptions: { ...base.compilerOptions, noEmit: true, lib: ['es2023', 'dom'], paths: exportPaths(), noUnusedLocals: false },
      files: [...files.map((f) => f.name), 'stubs.d.ts'],
    };
    writeFileSync(join(OUT, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(OUT, 'tsconfig.json'), '--pretty', 'false'], {
      encoding: 'utf8',
    });
    // Map "000-README-md-L40.ts(3,5): error …" back to "README.md:42: error …".
    const errors = `${tsc.stdout}${tsc.stderr}`
      .split('\n')
      .filter((l) => /error TS/.test(l))
      .map((l) => {
        const m = /^(?:.*[\\/])?(\d{3}-[^(]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(l);
        const f = m && files.find((x) => x.name === m[1]);
        return f ? `${f.block.doc}:${f.block.line + Number(m![2]) - 1}: ${m![4]}` : l;
      });
    expect(errors, errors.join('\n')).toEqual([]);
  }, 120_000);
});

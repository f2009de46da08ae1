/**
 * Docs that run: every TypeScript block of README.md and docs/**\/*.md is
 * extracted into its own module and typechecked against the package's public
 * entry points (`cachepoint`, `cachepoint/redis`, …, mapped to src/ exactly as
 * package.json exports them). A block must stand on its own: declare what it
 * uses (`declare const client: Anthropic`), as a reader's file would.
 *
 * One TypeScript program for all blocks, built in process from memory (no
 * files written, no tsc child process). Every error in a block is reported;
 * the sources the blocks import (src/, packages) are bound and read for their
 * types but their own bodies are not checked here: `npm run typecheck` does that.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { codeEntries } from '../helpers/package-exports.js';

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
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string };
  const paths: Record<string, string[]> = {};
  for (const [sub, target] of codeEntries(ROOT)) {
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

/**
 * Diagnostics of one program whose root files are `sources` (in memory, under OUT) with the
 * project's compiler options: option and global errors, and the syntax and type errors of each source.
 */
function typecheck(sources: ReadonlyMap<string, string>): ts.Diagnostic[] {
  const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    { ...base.compilerOptions, noEmit: true, lib: ['es2023', 'dom'], paths: exportPaths(), noUnusedLocals: false },
    OUT,
  );
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => sources.has(f) || fileExists.call(host, f);
  host.readFile = (f) => sources.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const text = sources.get(f);
    return text === undefined ? getSourceFile.call(host, f, lang, onError, create) : ts.createSourceFile(f, text, lang);
  };
  const program = ts.createProgram({ rootNames: [...sources.keys()], options, host });
  const own = program.getSourceFiles().filter((f) => sources.has(f.fileName));
  return [
    ...errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
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
    const stubs = new Set<string>();
    const files = blocks.map((b, i) => {
      const name = join(OUT, `${String(i).padStart(3, '0')}-${b.doc.replace(/[^a-z0-9]+/gi, '-')}-L${b.line}.ts`);
      let code = b.code;
      // A contributor's example that lives in the repo says where (`// src/import/my-log.ts`): its relative imports resolve from there.
      const home = /^\/\/ (src\/\S+\.ts)\s*$/m.exec(code.split('\n')[0] ?? '');
      if (home) code = code.replace(/(from\s+')(\.{1,2}\/[^']+)'/g, (_, from: string, spec: string) => `${from}${join(ROOT, dirname(home[1]!), spec)}'`);
      // Optional third-party clients a doc shows (ioredis, …) are not dev dependencies: typed as any when absent.
      for (const m of code.matchAll(/from\s+'([^'./][^']*)'/g)) if (!resolvable(m[1]!)) stubs.add(m[1]!);
      // Every block is its own module (top-level await allowed, no name clashes between blocks).
      return { name, block: b, text: `${code}\nexport {};\n` };
    });
    const stubFile = join(OUT, 'stubs.d.ts');
    const sources = new Map<string, string>([
      ...files.map((f) => [f.name, f.text] as const),
      [stubFile, [...stubs].map((m) => `declare module '${m}';`).join('\n')],
    ]);
    const errors = typecheck(sources).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const f = d.file && files.find((x) => x.name === d.file!.fileName);
      if (!f || d.start === undefined) return `${d.file ? relative(ROOT, d.file.fileName) : 'tsconfig'}: error TS${d.code}: ${message}`;
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start);
      return `${f.block.doc}:${f.block.line + line}: error TS${d.code}: ${message}`;
    });
    expect(errors, errors.join('\n')).toEqual([]);
  }, 120_000);
});

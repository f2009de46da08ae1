/**
 * The import graph of src/: no cycles (type-only imports included: a type
 * cycle is a design cycle too), and the data model depends on nothing above it.
 * Reads the sources as text; relative imports only (packages cannot cycle back).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Every relative `import … from`, `export … from` and `import()` of a file, resolved to a src-relative .ts path. */
function importsOf(file: string, text: string): string[] {
  const out = new Set<string>();
  const re =
    /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    out.add(relative(SRC, resolve(dirname(join(SRC, file)), spec.replace(/\.js$/, '.ts'))));
  }
  return [...out];
}

function sourceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const f of files) graph.set(f, importsOf(f, readFileSync(join(SRC, f), 'utf8')));
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || graph.get(v)?.includes(v)) out.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

describe('the import graph of src/', () => {
  const graph = sourceGraph();

  it('reads every source file and its imports', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('render/render.ts')).toContain('timeline/types.ts');
  });

  it('has no cycles, type-only imports included', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(importsOf('render/x.ts', "import type { A } from '../timeline/types.js';\nexport { b } from './b.js';")).toEqual([
      'timeline/types.ts',
      'render/b.ts',
    ]);
  });

  it('keeps the data model (timeline/) free of the layers above it (errors, internal helpers and the API shapes only)', () => {
    // providers/anthropic-types.ts declares the Messages API shapes the timeline holds (the SDK's types once were
    // those): a leaf that imports nothing.
    const leaf = 'providers/anthropic-types.ts';
    expect(graph.get(leaf)).toEqual([]);
    const upward = [...graph]
      .filter(([f]) => f.startsWith('timeline/'))
      .flatMap(([f, deps]) =>
        deps.filter((d) => !d.startsWith('timeline/') && !d.startsWith('internal/') && d !== 'errors.ts' && d !== leaf).map((d) => `${f} → ${d}`),
      );
    expect(upward).toEqual([]);
  });
});

describe('the optional peer @anthropic-ai/sdk', () => {
  it('is imported by no file of src/, types included (the published .d.ts must not need it)', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const importing = files.filter((f) => /(?:from\s*|import\(\s*)['"]@anthropic-ai\/sdk/.test(readFileSync(join(SRC, f), 'utf8')));
    expect(files.length).toBeGreaterThan(50);
    expect(importing).toEqual([]);
  });
});

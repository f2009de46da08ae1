/**
 * `cachepoint/ai-sdk` is its own entry point: the core entry (and the other
 * entries) reach nothing of `ai` or `@ai-sdk/*`, so an app without the AI SDK
 * installs and loads cachepoint as before.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeEntries } from '../../helpers/package-exports.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src');

/** Package specifiers and relative files imported by a file (type-only imports included). */
function importsOf(file: string): { files: string[]; packages: string[] } {
  const text = readFileSync(join(SRC, file), 'utf8');
  const files = new Set<string>();
  const packages = new Set<string>();
  const re = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    if (spec.startsWith('.')) files.add(relative(SRC, resolve(dirname(join(SRC, file)), spec.replace(/\.js$/, '.ts'))));
    else packages.add(spec);
  }
  return { files: [...files], packages: [...packages] };
}

/** Every package reachable from an entry file through relative imports. */
function reachablePackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const { files, packages: p } = importsOf(f);
    p.forEach((x) => packages.add(x));
    todo.push(...files);
  }
  return packages;
}

const isAiSdk = (spec: string) => spec === 'ai' || spec.startsWith('ai/') || spec.startsWith('@ai-sdk/');

describe('the cachepoint/ai-sdk entry point', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string } | string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };

  it('is exported as ./ai-sdk, built from src/integrations/ai-sdk/index.ts', () => {
    expect(pkg.exports['./ai-sdk']).toEqual({ types: './dist/integrations/ai-sdk/index.d.ts', default: './dist/integrations/ai-sdk/index.js' });
  });

  it('has ai and @ai-sdk/anthropic as optional peers', () => {
    for (const name of ['ai', '@ai-sdk/anthropic']) {
      expect(pkg.peerDependencies[name]).toBeDefined();
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
    }
  });

  it('no other entry reaches the AI SDK', () => {
    for (const [name, target] of codeEntries(ROOT)) {
      if (name === './ai-sdk') continue;
      const entry = relative(SRC, join(ROOT, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')));
      expect([...reachablePackages(entry)].filter(isAiSdk), `${name} (${entry})`).toEqual([]);
    }
  });

  it('the ai-sdk entry reaches the AI SDK only through `ai` (types, and jsonSchema for the recall tool)', () => {
    expect([...reachablePackages('integrations/ai-sdk/index.ts')].filter(isAiSdk)).toEqual(['ai']);
  });
});

/**
 * The core entry (`cachepoint`, src/index.ts) runs on edge runtimes: its
 * module graph, bundled the way a Worker bundler would (esbuild, platform
 * neutral), imports no Node built-in. Files live behind `cachepoint/node`,
 * Redis behind `cachepoint/redis`. Also: one rank table (cl100k) and nothing of
 * js-tiktoken's all-encodings entry.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function graph(entry: string) {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    metafile: true,
    // Keep every bare import visible instead of failing on it: the test reads the graph.
    external: ['node:*', ...NODE_BARE],
    logLevel: 'silent',
  });
  const imports: { from: string; path: string }[] = [];
  for (const [from, input] of Object.entries(result.metafile.inputs)) for (const i of input.imports) imports.push({ from, path: i.path });
  return { imports, inputs: Object.keys(result.metafile.inputs) };
}

/** Node built-ins that can be imported without the `node:` prefix. */
const NODE_BARE = [
  'fs',
  'fs/promises',
  'path',
  'crypto',
  'os',
  'url',
  'util',
  'readline',
  'stream',
  'events',
  'child_process',
  'net',
  'tls',
  'http',
  'https',
  'zlib',
  'v8',
  'vm',
  'worker_threads',
  'buffer',
  'process',
  'module',
];

describe('the core entry', () => {
  it('imports no Node built-in anywhere in its module graph', async () => {
    const { imports } = await graph('src/index.ts');
    const node = imports.filter((i) => i.path.startsWith('node:') || NODE_BARE.includes(i.path));
    expect(node).toEqual([]);
  });

  it('bundles one rank table (cl100k) and not js-tiktoken’s all-encodings entry', async () => {
    const { inputs } = await graph('src/index.ts');
    const tiktoken = inputs.filter((f) => f.includes('js-tiktoken'));
    expect(tiktoken).toEqual(['node_modules/js-tiktoken/dist/ranks/cl100k_base.js']);
  });

  it('keeps the file-system parts behind cachepoint/node', async () => {
    const { imports } = await graph('src/node.ts');
    expect(imports.some((i) => i.path === 'node:fs')).toBe(true);
  });
});

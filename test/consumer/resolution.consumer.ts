/**
 * How a new user's project finds the package: the packed tarball installed in a
 * fresh project, imported through every entry point (`cachepoint`,
 * `cachepoint/node`, `/testing`, `/testing/serializer`, `/redis`, and the
 * types of `/ai-sdk` and `/otel`, whose optional peers are not installed here) from TypeScript under each module resolution people
 * have in their tsconfig, and from plain JavaScript, ESM and CommonJS:
 *
 * - ESM, `module`/`moduleResolution` `nodenext` and `node16`: typecheck and run;
 * - CommonJS (`"type": "commonjs"`), `module: nodenext`: typecheck, and the
 *   emitted `require()` calls run (Node's require of ES modules, >= 20.19);
 * - CommonJS with the old `moduleResolution: node` (node10; the default of
 *   `module: commonjs` before TypeScript 6): only `typesVersions` maps the
 *   subpaths there, so this case fails without it; typecheck and run;
 * - `bundler`: typecheck;
 * - plain `.mjs` (import) and `.cjs` (require): run.
 *
 * Each runs `prepare` for real (a request with cache points) and prints one
 * JSON line. TypeScript is the repository's own (6.x; node10 needs its
 * `ignoreDeprecations: "6.0"`); skipLibCheck is on, as in most projects, since
 * what is checked here is resolution (the strict .d.ts checks are in
 * sdk-versions and no-sdk).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npm, pack, ROOT, type Packed } from './project.js';

let packed: Packed;
let dir: string;
beforeAll(() => {
  packed = pack('cachepoint-resolution-');
  dir = join(packed.work, 'project');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { cachepoint: `file:${packed.tarball}` } }),
  );
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], dir);
});
afterAll(() => packed?.remove());

/** The same program, in TypeScript (ESM or CommonJS is the compiler's choice). */
const MAIN_TS = `
import { prepare, ToolCache, MemoryConversationStore } from 'cachepoint';
import { FileConversationStore } from 'cachepoint/node';
import { startFakeServer } from 'cachepoint/testing';
import { renderSerializer } from 'cachepoint/testing/serializer';
import { createRedisToolCacheStore, createRedisConversationStore } from 'cachepoint/redis';
import type { CachepointTelemetry } from 'cachepoint/otel';
import type { CachepointMiddlewareOptions } from 'cachepoint/ai-sdk';

const middlewareOptions: CachepointMiddlewareOptions = { conversationId: 'c' };
export type Telemetry = CachepointTelemetry;
async function main(): Promise<void> {
  const { params } = await prepare(
    { model: 'claude-sonnet-4-6', max_tokens: 64, system: 'You are terse. '.repeat(400), messages: [{ role: 'user', content: 'Hi' }] },
    { conversationId: 'c', store: new MemoryConversationStore() },
  );
  const entries = [ToolCache, FileConversationStore, startFakeServer, renderSerializer, createRedisToolCacheStore, createRedisConversationStore];
  console.log(JSON.stringify({ markers: JSON.stringify(params).split('cache_control').length - 1, entries: entries.map((e) => typeof e), ai: typeof middlewareOptions.conversationId }));
}
void main();
`;

const JS_BODY = (load: string) => `
${load}
const entries = [c.ToolCache, n.FileConversationStore, t.startFakeServer, s.renderSerializer, r.createRedisToolCacheStore, r.createRedisConversationStore];
c.prepare(
  { model: 'claude-sonnet-4-6', max_tokens: 64, system: 'You are terse. '.repeat(400), messages: [{ role: 'user', content: 'Hi' }] },
  { conversationId: 'c', store: new c.MemoryConversationStore() },
).then(({ params }) => console.log(JSON.stringify({ markers: JSON.stringify(params).split('cache_control').length - 1, entries: entries.map((e) => typeof e), ai: 'string' })));
`;
const ESM_JS = JS_BODY(`
import * as c from 'cachepoint';
import * as n from 'cachepoint/node';
import * as t from 'cachepoint/testing';
import * as s from 'cachepoint/testing/serializer';
import * as r from 'cachepoint/redis';`);
const CJS_JS = JS_BODY(`
const c = require('cachepoint');
const n = require('cachepoint/node');
const t = require('cachepoint/testing');
const s = require('cachepoint/testing/serializer');
const r = require('cachepoint/redis');`);

const EXPECTED = { markers: 2, entries: ['function', 'function', 'function', 'object', 'function', 'function'], ai: 'string' };

interface Case {
  readonly name: string;
  /** `type` of the folder's package.json. */
  readonly type: 'module' | 'commonjs';
  readonly compilerOptions: Record<string, unknown>;
  /** Whether the emitted JavaScript runs (bundler output is for a bundler). */
  readonly run: boolean;
}

const CASES: readonly Case[] = [
  { name: 'esm-nodenext', type: 'module', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' }, run: true },
  { name: 'esm-node16', type: 'module', compilerOptions: { module: 'node16', moduleResolution: 'node16' }, run: true },
  { name: 'cjs-nodenext', type: 'commonjs', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' }, run: true },
  {
    name: 'cjs-node10',
    type: 'commonjs',
    compilerOptions: { module: 'commonjs', moduleResolution: 'node', ignoreDeprecations: '6.0' },
    run: true,
  },
  { name: 'bundler', type: 'module', compilerOptions: { module: 'esnext', moduleResolution: 'bundler', noEmit: true }, run: false },
];

function tsc(project: string): string[] {
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { encoding: 'utf8' });
    return [];
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err)
      .split('\n')
      .filter((l) => l.includes('error TS'))
      .slice(0, 10);
  }
}

const run = (file: string) => JSON.parse(execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1)!);

describe('the packed package under every module resolution', () => {
  for (const c of CASES) {
    it(`TypeScript, ${c.name}: typechecks${c.run ? ' and runs' : ''}`, () => {
      const sub = join(dir, c.name);
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, 'package.json'), JSON.stringify({ type: c.type }));
      writeFileSync(join(sub, 'main.ts'), MAIN_TS);
      writeFileSync(
        join(sub, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'es2022', strict: true, skipLibCheck: true, types: [], outDir: 'out', ...c.compilerOptions },
          files: ['main.ts'],
        }),
      );
      expect(tsc(sub)).toEqual([]);
      if (c.run) expect(run(join(sub, 'out', 'main.js'))).toEqual(EXPECTED);
    });
  }

  it('plain JavaScript: import from .mjs and require() from .cjs run', () => {
    writeFileSync(join(dir, 'plain.mjs'), ESM_JS);
    writeFileSync(join(dir, 'plain.cjs'), CJS_JS);
    expect(run(join(dir, 'plain.mjs'))).toEqual(EXPECTED);
    expect(run(join(dir, 'plain.cjs'))).toEqual(EXPECTED);
  });

  it('cachepoint/package.json is exported: tools read the installed version by require() and by a JSON import', () => {
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    const expected = { name: own.name, version: own.version };
    writeFileSync(
      join(dir, 'version.cjs'),
      `const p = require('cachepoint/package.json');\nconsole.log(JSON.stringify({ name: p.name, version: p.version }));\n`,
    );
    writeFileSync(
      join(dir, 'version.mjs'),
      `import p from 'cachepoint/package.json' with { type: 'json' };\nconsole.log(JSON.stringify({ name: p.name, version: p.version }));\n`,
    );
    expect(run(join(dir, 'version.cjs'))).toEqual(expected);
    expect(run(join(dir, 'version.mjs'))).toEqual(expected);
  });
});

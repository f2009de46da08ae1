/**
 * Docs that run: the loops a new user copies first (the README's drop-in, AI SDK, Session and pure-function blocks,
 * docs/drop-in.md's loop, docs/providers.md's OpenAI and fake-endpoint blocks) are extracted from the markdown and
 * run, each in its own process, against the fake server (`cachepoint/testing`): the real `@anthropic-ai/sdk` and
 * `openai` clients, pointed there by their own environment variables (ANTHROPIC_BASE_URL, OPENAI_BASE_URL), as a
 * reader's project would. code-blocks.test.ts typechecks every block; this proves these ones also run.
 *
 * What a block only `declare`s (the reader's own `system`, `tools`, `liveView`, …) is given a small value by a
 * prelude; nothing else of the block is changed. A block is found by a line it holds, not by its line number.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeEntries } from '../helpers/package-exports.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The block of `doc` that holds `marker` (its code, without the fences). */
function blockWith(doc: string, marker: string): string {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${doc}: ${found.length} ts blocks hold ${JSON.stringify(marker)} (want 1)`);
  return found[0]!;
}

/** Values for the names a block declares (the reader's own), as source text. */
const VALUES: Record<string, string> = {
  system: `'You are a careful coding agent. ' + 'Follow the house rules. '.repeat(300)`,
  tools: `[{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'Edit', description: 'Edits a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }]`,
  messages: `[{ role: 'user', content: 'The test in math.test.ts fails. Fix it.' }]`,
  liveView: `() => 'LIVE VIEW: 1 file open'`,
  runTool: `async (call) => ({ type: 'tool_result', tool_use_id: call.id, content: 'export const add = (a, b) => a - b;' })`,
  runTools: `async (message) => message.content.filter((b) => b.type === 'tool_use').map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'ok' }))`,
  RUNTIME_INSTRUCTIONS: `'You run inside a runtime. ' + 'Runtime rules. '.repeat(300)`,
  AGENT_INSTRUCTIONS: `'You fix failing tests.'`,
  skills: '[]',
  readFile: `async ({ path }) => 'content of ' + path`,
  editFile: `async ({ path }) => 'edited ' + path`,
  instructions: `['You are a careful coding agent.']`,
  // The block imports the SDK's default export as `Anthropic`.
  client: 'new Anthropic()',
};

/** The names a block declares: `declare const a: T, b: U;` and `declare function f(…)`. */
function declared(code: string): string[] {
  const names: string[] = [];
  for (const line of code.split('\n')) {
    const fn = /^declare function (\w+)/.exec(line);
    if (fn) names.push(fn[1]!);
    const c = /^declare const (.*);/.exec(line);
    if (c) for (const m of c[1]!.matchAll(/(?:^|,\s*)(\w+)\s*:/g)) names.push(m[1]!);
  }
  return names;
}

/** The fake server every block but the self-contained one talks to: a tool round, then an answer. */
const PRELUDE = `import { startFakeServer as __startFakeServer } from 'cachepoint/testing';
const __server = await __startFakeServer({ port: Number(process.env.CACHEPOINT_DOC_PORT ?? 0), script: [
  [{ type: 'tool_use', id: 'toolu_01', name: 'Read', input: { path: 'math.ts' } }],
  [{ type: 'text', text: 'Fixed: add returned a - b.' }],
] });
process.env.ANTHROPIC_BASE_URL = __server.url;
process.env.ANTHROPIC_API_KEY = 'test';
process.env.OPENAI_BASE_URL = __server.url + '/v1';
process.env.OPENAI_API_KEY = 'test';
`;

let dir: string | undefined;
function workDir(): string {
  if (dir) return dir;
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-doc-run-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const paths: Record<string, string[]> = {};
  for (const [sub, target] of codeEntries(ROOT)) {
    paths[sub === '.' ? 'cachepoint' : `cachepoint/${sub.slice(2)}`] = [join(ROOT, target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'))];
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', paths } }));
  mkdirSync(join(dir, 'blocks'));
  return dir;
}
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a block in its own process: its imports, the prelude, the declared names' values, its body. */
function run(name: string, code: string, options: { fake: boolean; port?: number }): { status: number | null; stdout: string; stderr: string } {
  const lines = code.split('\n');
  const imports = lines.filter((l) => l.startsWith('import ')).join('\n');
  const body = lines.filter((l) => !l.startsWith('import ') && !l.startsWith('declare ')).join('\n');
  const values = declared(code).map((n) => {
    if (VALUES[n] === undefined) throw new Error(`${name}: no value for the declared name ${n}`);
    return `const ${n} = ${VALUES[n]};`;
  });
  const source = [
    imports,
    options.fake ? PRELUDE : '',
    ...values,
    body,
    options.fake ? `console.log('fake server requests: ' + __server.requests.length);\nawait __server.close();` : '',
  ].join('\n');
  const file = join(workDir(), 'blocks', `${name}.ts`);
  writeFileSync(file, source);
  // A provider created at import (the AI SDK's `anthropic`) reads its base URL then: give it the port the prelude's server takes.
  const env =
    options.port === undefined
      ? process.env
      : { ...process.env, CACHEPOINT_DOC_PORT: String(options.port), ANTHROPIC_BASE_URL: `http://127.0.0.1:${options.port}/v1`, ANTHROPIC_API_KEY: 'test' };
  const out = spawnSync(process.execPath, [TSX, file], { cwd: workDir(), encoding: 'utf8', timeout: 90_000, env });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

const BLOCKS: { name: string; doc: string; marker: string; fake?: false; aiSdk?: true }[] = [
  { name: 'readme-ai-sdk', doc: 'README.md', marker: 'cachepointMiddleware({ conversationId, tail: liveView })', aiSdk: true },
  { name: 'readme-drop-in', doc: 'README.md', marker: "await recordUsage(message, { conversationId: 'task-42' });" },
  { name: 'readme-session', doc: 'README.md', marker: 'const session = new Session({' },
  { name: 'readme-pure-functions', doc: 'README.md', marker: 'state = appendToolResults(state, await runTools(message));' },
  { name: 'drop-in-loop', doc: 'docs/drop-in.md', marker: 'for (;;) {' },
  { name: 'providers-openai', doc: 'docs/providers.md', marker: 'toOpenAIResponses(rendered' },
  { name: 'providers-fake-endpoints', doc: 'docs/providers.md', marker: 'requestHandler: new NodeHttpHandler()', fake: false },
];

/** A loopback port nothing listens on now (the child's fake server takes it). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

describe('the first blocks a reader copies run', () => {
  it.each(BLOCKS)(
    '$doc: $name',
    async ({ name, doc, marker, fake, aiSdk }) => {
      const out = run(name, blockWith(doc, marker), { fake: fake !== false, ...(aiSdk ? { port: await freePort() } : {}) });
      expect(out.stderr, out.stderr).not.toMatch(/Error|at .*\.ts:\d+/);
      expect(out.status, out.stderr).toBe(0);
      // It really talked to the fake server (a block that returned early would not).
      if (fake !== false) expect(Number(/fake server requests: (\d+)/.exec(out.stdout)?.[1])).toBeGreaterThan(0);
    },
    120_000,
  );
});

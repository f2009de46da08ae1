/**
 * A complete coding-agent loop with cachepoint, runnable offline:
 *
 *   npm run example
 *
 * - a file-reading/editing toolset over a temporary directory,
 * - the real `@anthropic-ai/sdk` client, pointed at cachepoint's fake Messages
 *   API (scripted model answers; usage from the provider cache simulator),
 * - the Session API rendering every request for cache reuse, and the tool cache
 *   replaying repeated reads until an edit invalidates them.
 *
 * Point `baseURL` at the real API (and drop the script) to run it for real.
 */
import { mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { Session, ToolCache } from '../../src/index.js';
import { startFakeServer } from '../../src/testing/index.js';

const tools: Tool[] = [
  {
    name: 'Read',
    description: 'Read a file of the workspace. Returns its content.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'Edit',
    description: 'Replace the first occurrence of `old` with `new` in a file.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
      required: ['path', 'old', 'new'],
    },
  },
  { name: 'List', description: 'List the files of the workspace.', input_schema: { type: 'object', properties: {} } },
];

const SYSTEM = [
  'You are a careful coding agent working in a small TypeScript repository. Read before you edit, keep changes minimal, and explain what you changed. '.repeat(
    40,
  ),
  'Repository conventions: 2-space indentation, named exports, tests next to the code.',
];

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cachepoint-example-'));
  await writeFile(join(dir, 'math.ts'), 'export function add(a: number, b: number) {\n  return a - b; // bug\n}\n');
  await writeFile(join(dir, 'math.test.ts'), "import { add } from './math';\nconsole.assert(add(2, 2) === 4);\n");
  await writeFile(join(dir, 'README.md'), '# math\nA tiny library.\n'.repeat(20));

  const handlers = {
    Read: async (args: { path: string }) => readFile(join(dir, args.path), 'utf8'),
    Edit: async (args: { path: string; old: string; new: string }) => {
      const file = join(dir, args.path);
      const text = await readFile(file, 'utf8');
      if (!text.includes(args.old)) throw new Error(`"${args.old}" not found in ${args.path}`);
      await writeFile(file, text.replace(args.old, args.new));
      return `Edited ${args.path}`;
    },
    List: async () => (await readdir(dir)).sort().join('\n'),
  };
  const toolCache = new ToolCache()
    .register<{ path: string }>('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a) => [`file:${a.path}`] })
    .register<{ path: string }>('Edit', { writes: ['file'], tags: (a) => [`file:${a.path}`] })
    .register('List', { cacheable: true, ttl: { turns: 5 }, reads: ['file'] });

  // The scripted model: what a real model might answer in this session.
  const server = await startFakeServer({
    script: [
      [
        { type: 'thinking', thinking: 'Start by looking around.', signature: 's1' },
        { type: 'tool_use', name: 'List', input: {} },
      ],
      [
        { type: 'tool_use', name: 'Read', input: { path: 'math.ts' } },
        { type: 'tool_use', name: 'Read', input: { path: 'math.test.ts' } },
      ],
      [{ type: 'tool_use', name: 'Edit', input: { path: 'math.ts', old: 'a - b; // bug', new: 'a + b;' } }],
      [{ type: 'tool_use', name: 'Read', input: { path: 'math.ts' } }],
      [{ type: 'text', text: 'Fixed `add` in math.ts: it subtracted instead of adding.' }],
      [
        { type: 'tool_use', name: 'Read', input: { path: 'README.md' } },
        { type: 'tool_use', name: 'Read', input: { path: 'math.test.ts' } },
      ],
      [{ type: 'tool_use', name: 'Read', input: { path: 'math.ts' } }],
      [{ type: 'text', text: 'The README does not mention `add`; the test covers it. Nothing else to change.' }],
    ],
  });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'offline-example', maxRetries: 0 });

  const session = new Session({
    model: 'claude-sonnet-4-6',
    instructions: SYSTEM,
    tools,
    toolCache,
    handlers: handlers as never,
    request: { max_tokens: 2048 },
  });
  try {
    for (const task of ['The test fails: fix add().', 'Is anything else in the repo affected?']) {
      session.startTurn(task);
      for (;;) {
        session.setTail(`Workspace: ${dir} · ${new Date(0).toISOString()}`);
        const message = await session.step(client);
        const text = message.content
          .filter((b) => b.type === 'text')
          .map((b) => b.text)
          .join(' ');
        console.log(`→ ${message.stop_reason}${text ? `: ${text}` : ''}`);
        if (message.stop_reason !== 'tool_use') break;
      }
    }
    console.log(`\nmath.ts now:\n${await readFile(join(dir, 'math.ts'), 'utf8')}`);
    console.log(session.formatStats());
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

/**
 * The end-to-end harness for the AI SDK door: the real `ai` and
 * `@ai-sdk/anthropic` packages, pointed at the fake Messages API (`baseURL`).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, tool } from 'ai';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { startFakeServer, type FakeMessagesServer, type FakeServerOptions } from '../../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../../src/testing/fake-server-script.js';
import { afterEach } from 'vitest';
import { text } from '../../helpers/build.js';

// The warnings under test are asserted through onWarning and result.warnings; keep the AI SDK's console copy quiet.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export const MODEL = 'claude-sonnet-4-6';

export const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions, run the tests, and explain what you changed. '.repeat(90)}`;

/** A fake server and an Anthropic provider that talks to it. */
export async function fakeAnthropic(options: FakeServerOptions = {}) {
  const server = await startFakeServer(options);
  const provider = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test-key' });
  return { server, provider };
}

/** A list for the fake servers a test file starts: each is closed after its test. */
export function closedAfterEach(): FakeMessagesServer[] {
  const servers: FakeMessagesServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return servers;
}

/** A `Read` tool whose result is large enough to be worth caching (`content of <path>` 200 times). */
export const bigRead = tool({
  description: 'Reads a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path }) => `content of ${path} `.repeat(200),
});

/** The bodies of the model requests the server received (POST /v1/messages), in order. */
export function bodies(server: FakeMessagesServer): MessageCreateParamsBase[] {
  return server.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as MessageCreateParamsBase);
}

/** Workspace files the Read tool serves (deterministic, ~1k characters each). */
export const FILES: Readonly<Record<string, string>> = Object.fromEntries(
  ['src/index.ts', 'src/mod-1.ts', 'src/mod-2.ts', 'src/mod-3.ts'].map((p) => [p, text(p, 1200)]),
);

/** The agent's tools, as AI SDK tools with JSON schemas; `Read` counts its runs. */
export function agentTools(runs = { count: 0 }) {
  return {
    Read: tool({
      description: 'Reads a file from the workspace and returns its content.',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false }),
      execute: async ({ path }) => {
        runs.count++;
        return FILES[path] ?? `Error: no such file ${path}`;
      },
    }),
    Grep: tool({
      description: 'Searches the workspace for a pattern; returns matching lines as JSON.',
      inputSchema: jsonSchema<{ pattern: string }>({
        type: 'object',
        properties: { pattern: { type: 'string' } },
        required: ['pattern'],
        additionalProperties: false,
      }),
      execute: async ({ pattern }) => ({ pattern, matches: Object.keys(FILES).map((f) => `${f}:1: ${pattern}`) }),
    }),
  };
}

/** Turn t: `rounds` tool rounds (two parallel calls each, one of them a Grep), then a final answer. */
export function script(turns = 3, rounds = 3): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= turns; t++) {
    for (let r = 1; r <= rounds; r++) {
      out.push([
        { type: 'text', text: `Turn ${t}, step ${r}: reading more.` },
        { type: 'tool_use', id: `toolu_${t}_${r}_a`, name: 'Read', input: { path: `src/mod-${r}.ts` } },
        { type: 'tool_use', id: `toolu_${t}_${r}_b`, name: r === 2 ? 'Grep' : 'Read', input: r === 2 ? { pattern: 'export' } : { path: 'src/index.ts' } },
      ]);
    }
    out.push([{ type: 'text', text: `Turn ${t} done: the change is in src/mod-1.ts.` }]);
  }
  return out;
}

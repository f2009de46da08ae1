/**
 * A Vercel AI SDK agent with cachepoint, runnable offline:
 *
 *   npm run example:ai-sdk
 *
 * - the real `ai` (streamText, a multi-step tool loop) and `@ai-sdk/anthropic`
 *   packages, with the model pointed at cachepoint's fake Messages API
 *   (scripted answers; usage from the provider cache simulator),
 * - `cachepointMiddleware` around the model: cache points, a volatile tail,
 *   pruning and recall, usage recorded per conversation,
 * - the same conversation without the middleware, for the bill.
 *
 * Drop `baseURL` (and the script) to run it against the real API.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel, type LanguageModel, type ModelMessage } from 'ai';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import { formatConversationStats, MemoryConversationStore, promptCost, resolveProfile, usageTokens } from '../../src/index.js';
import { cachepointMiddleware, createRecallTool } from '../../src/integrations/ai-sdk/index.js';
import { startFakeServer, type FakeMessagesServer, type ScriptEntry } from '../../src/testing/index.js';

const FILES: Record<string, string> = {
  'math.ts': 'export function add(a: number, b: number) {\n  return a - b; // bug\n}\n',
  'math.test.ts': "import { add } from './math';\nconsole.assert(add(2, 2) === 4);\n",
  'README.md': '# math\nA tiny library of arithmetic helpers, with tests next to the code.\n'.repeat(40),
};

const INSTRUCTIONS =
  'You are a careful coding agent working in a small TypeScript repository. Read before you edit, keep changes minimal, and explain what you changed. '.repeat(
    40,
  );

/** The scripted model: what a real model might answer in this conversation. */
const SCRIPT: ScriptEntry[] = [
  [
    { type: 'text', text: 'Let me look at the code.' },
    { type: 'tool_use', name: 'Read', input: { path: 'math.ts' } },
    { type: 'tool_use', name: 'Read', input: { path: 'math.test.ts' } },
  ],
  [{ type: 'tool_use', name: 'Edit', input: { path: 'math.ts', old: 'a - b; // bug', new: 'a + b;' } }],
  [{ type: 'text', text: 'Fixed `add` in math.ts: it subtracted instead of adding.' }],
  [{ type: 'tool_use', name: 'Read', input: { path: 'README.md' } }],
  [{ type: 'tool_use', name: 'Read', input: { path: 'math.ts' } }],
  [{ type: 'text', text: 'The README does not mention `add`; nothing else to change.' }],
];

const TASKS = ['The test in math.test.ts fails. Fix it.', 'Is anything else in the repo affected?'];

function tools(files: Record<string, string>) {
  return {
    Read: tool({
      description: 'Read a file of the workspace. Returns its content.',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      execute: async ({ path }) => files[path] ?? `Error: no file ${path}`,
    }),
    Edit: tool({
      description: 'Replace the first occurrence of `old` with `new` in a file.',
      inputSchema: jsonSchema<{ path: string; old: string; new: string }>({
        type: 'object',
        properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
        required: ['path', 'old', 'new'],
      }),
      execute: async ({ path, old, new: replacement }) => {
        const text = files[path];
        if (text === undefined || !text.includes(old)) return `Error: "${old}" not found in ${path}`;
        files[path] = text.replace(old, replacement);
        return `Edited ${path}`;
      },
    }),
  };
}

/** Runs the two-turn conversation, a streamText tool loop per turn, keeping the history as a chat app does. */
async function converse(model: LanguageModel, extraTools: object, log: boolean): Promise<void> {
  const files = { ...FILES };
  const messages: ModelMessage[] = [];
  for (const [i, task] of TASKS.entries()) {
    if (log) console.log(`\n> ${task}`);
    messages.push({ role: 'user', content: task });
    const result = streamText({ model, instructions: INSTRUCTIONS, messages, tools: { ...tools(files), ...extraTools }, stopWhen: stepCountIs(10) });
    for await (const part of result.fullStream) {
      if (!log) continue;
      if (part.type === 'text-delta') process.stdout.write(part.text);
      else if (part.type === 'tool-call') process.stdout.write(`\n  [${part.toolName} ${JSON.stringify(part.input)}]\n`);
    }
    messages.push(...(await result.responseMessages));
    if (log) console.log(i === TASKS.length - 1 ? `\n\nmath.ts now:\n${files['math.ts']}` : '');
  }
}

/** What the fake API billed for the prompts (input side), priced with the model's prices. */
function bill(server: FakeMessagesServer): number {
  const prices = resolveProfile('claude-sonnet-4-6').prices;
  return server.requests.reduce((n, r) => n + promptCost(prices, usageTokens((r.response as Message).usage)), 0);
}

async function main(): Promise<void> {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  const conversationId = 'example-chat';
  const store = new MemoryConversationStore();
  const ours = await startFakeServer({ script: SCRIPT });
  const plain = await startFakeServer({ script: SCRIPT });
  try {
    // With cachepoint: one line around the model, plus the recall tool.
    const model = wrapLanguageModel({
      model: createAnthropic({ baseURL: `${ours.url}/v1`, apiKey: 'offline-example' })('claude-sonnet-4-6'),
      middleware: cachepointMiddleware({ conversationId, store, tail: () => `Workspace: /repo · budget: 40,000 tokens left` }),
    });
    await converse(model, { recall: createRecallTool({ conversationId, store }) }, true);
    console.log(await formatConversationStats({ conversationId, store }));

    // The same conversation with the AI SDK alone (no cache options set).
    await converse(createAnthropic({ baseURL: `${plain.url}/v1`, apiKey: 'offline-example' })('claude-sonnet-4-6'), {}, false);
    console.log(`without cachepoint: $${bill(plain).toFixed(4)} for the same ${plain.requests.length} requests; with: $${bill(ours).toFixed(4)}`);
  } finally {
    await Promise.all([ours.close(), plain.close()]);
  }
}

await main();

/**
 * Pruned payloads through the AI SDK door: after the cache went cold, old
 * tool results reach the model as notes; the `recall` tool reads them back
 * byte-identical from the conversation store. Registered up front with
 * `createRecallTool`, it is part of the envelope from the first request; when
 * it is not registered, its definition is added once something is recallable
 * (with one warning: without the tool in `tools`, the AI SDK cannot run it).
 */
import type { ContentBlockParam, MessageCreateParamsBase, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { generateText, stepCountIs, wrapLanguageModel, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, createRecallTool, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../../src/testing/fake-server-script.js';
import { agentTools, bodies, fakeAnthropic, FILES, MODEL, SYSTEM } from './harness.js';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const NOTE = /recall\(\\?"(turns\/[^"\\]+)\\?"\)/;

/** Turn 1 reads a file; turn 2 (after the cache went cold) recalls the pruned result by the path its note names. */
function script(): ScriptEntry[] {
  return [
    [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { path: 'src/mod-1.ts' } }],
    [{ type: 'text', text: 'Turn 1 done.' }],
    [{ type: 'text', text: 'Turn 2: acknowledged.' }],
    [{ type: 'text', text: 'Turn 3: acknowledged.' }],
    (request) => {
      const path = NOTE.exec(JSON.stringify(request.messages))?.[1];
      return path ? [{ type: 'tool_use', id: 'toolu_recall', name: 'recall', input: { path } }] : [{ type: 'text', text: 'no note found' }];
    },
    [{ type: 'text', text: 'Turn 4 done.' }],
  ];
}

async function run(register: boolean) {
  let clock = 1_000_000;
  const fake = await fakeAnthropic({ script: script(), now: () => clock });
  servers.push(fake.server);
  const store = new MemoryConversationStore();
  const warnings: CachepointWarning[] = [];
  const model = wrapLanguageModel({
    model: fake.provider(MODEL),
    middleware: cachepointMiddleware({
      conversationId: 'recall',
      store,
      now: () => clock,
      render: { prune: { keepTurns: 1, keepRounds: 1, minChars: 500, reuse: false } },
      onWarning: (w) => warnings.push(w),
    }),
  });
  const tools = { ...agentTools(), ...(register ? { recall: createRecallTool({ conversationId: 'recall', store }) } : {}) };
  const messages: ModelMessage[] = [];
  for (let t = 1; t <= 4; t++) {
    messages.push({ role: 'user', content: `Task ${t}` });
    const result = await generateText({ model, instructions: SYSTEM, messages, tools, stopWhen: stepCountIs(5) });
    messages.push(...result.responseMessages);
    clock += 10 * 60_000; // the 5-minute cache goes cold between turns
  }
  return { sent: bodies(fake.server), warnings, statuses: fake.server.requests.map((r) => r.status) };
}

const toolNames = (body: MessageCreateParamsBase) => (body.tools ?? []).map((t) => (t as { name: string }).name);
const results = (body: MessageCreateParamsBase) =>
  body.messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b): b is ToolResultBlockParam => (b as ContentBlockParam).type === 'tool_result');

describe('recall through the AI SDK', () => {
  it('createRecallTool answers a pruned result’s note with the original payload, byte-identical', async () => {
    const { sent, warnings, statuses } = await run(true);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(warnings).toEqual([]);
    // registered up front: the tool list never changes
    for (const body of sent) expect(toolNames(body)).toEqual(['Read', 'Grep', 'recall']);
    // the Read result went out in full, then as a note once the cache was cold
    const read = (body: MessageCreateParamsBase) => results(body).find((r) => r.tool_use_id === 'toolu_read');
    expect(read(sent[1]!)?.content).toBe(FILES['src/mod-1.ts']);
    const pruned = sent.find((b) => JSON.stringify(read(b)?.content ?? '').startsWith('"[pruned'));
    expect(pruned).toBeDefined();
    // the model recalled it by the note's path and got the original back
    const answer = results(sent.at(-1)!).find((r) => r.tool_use_id === 'toolu_recall');
    expect(answer?.is_error).toBeUndefined();
    expect(answer?.content).toBe(FILES['src/mod-1.ts']);
  });

  it('without a registered recall tool, its definition is offered once something is recallable, with a warning', async () => {
    const { sent, warnings } = await run(false);
    const first = sent.findIndex((b) => toolNames(b).includes('recall'));
    expect(first).toBeGreaterThan(0);
    // offered from the first request that carries a note on, and not before
    expect(JSON.stringify(sent[first - 1]!.messages)).not.toMatch(NOTE);
    expect(JSON.stringify(sent[first]!.messages)).toMatch(NOTE);
    for (const body of sent.slice(first)) expect(toolNames(body)).toEqual(['Read', 'Grep', 'recall']);
    expect(warnings.map((w) => w.code)).toContain('recall_tool_missing');
  });
});

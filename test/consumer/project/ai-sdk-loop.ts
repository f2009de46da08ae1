/**
 * A consumer's AI SDK tool loop, compiled (strict, skipLibCheck off) and run
 * inside a fresh project that installed the packed cachepoint tarball next to
 * one version of `ai` and `@ai-sdk/anthropic` (see ai-sdk-versions.consumer.ts).
 * The same source for every supported major: only what ai 5, 6 and 7 all have.
 * A generateText loop and a streamText loop, 3 turns of 3 tool rounds (two
 * parallel calls each, text and JSON results) and an answer each (12 requests
 * per loop), and one that switches (generateText, streamText, generateText),
 * against cachepoint's fake Messages API;
 * it prints what it saw as one JSON line.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from 'ai';
import { conversationStats, MemoryConversationStore } from 'cachepoint';
import { cachepointMiddleware, createRecallTool, type CachepointPlanEvent, type CachepointWarning } from 'cachepoint/ai-sdk';
import { startFakeServer, type ScriptEntry } from 'cachepoint/testing';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions, run the tests, and explain what you changed. '.repeat(90)}`;
const file = (p: string) => `// ${p}\n${'export const value = 1;\n'.repeat(60)}`;

function script(): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= 3; t++) {
    for (let r = 1; r <= 3; r++) {
      out.push([
        { type: 'text', text: `Turn ${t}, step ${r}: reading.` },
        { type: 'tool_use', id: `toolu_${t}_${r}_a`, name: 'Read', input: { path: `src/m${r}.ts` } },
        r === 2
          ? { type: 'tool_use', id: `toolu_${t}_${r}_b`, name: 'Grep', input: { pattern: 'export' } }
          : { type: 'tool_use', id: `toolu_${t}_${r}_b`, name: 'Read', input: { path: 'src/index.ts' } },
      ]);
    }
    out.push([{ type: 'text', text: `Turn ${t} done.` }]);
  }
  return out;
}

/**
 * All the messages a call added: ai 7's `responseMessages` (its `response.messages` is the last step only);
 * ai 5 and 6 have no `responseMessages`, and their `response.messages` holds every step.
 */
async function added(result: { response: PromiseLike<{ messages: ModelMessage[] }> | { messages: ModelMessage[] } }): Promise<ModelMessage[]> {
  const all = (result as { responseMessages?: ModelMessage[] | PromiseLike<ModelMessage[]> }).responseMessages;
  return all !== undefined ? await all : (await result.response).messages;
}

async function loop(mode: 'generate' | 'stream' | 'switch') {
  const server = await startFakeServer({ script: script() });
  const anthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test' });
  const store = new MemoryConversationStore();
  const warnings: CachepointWarning[] = [];
  const plans: CachepointPlanEvent[] = [];
  const middleware = cachepointMiddleware({
    conversationId: mode,
    store,
    onWarning: (w) => warnings.push(w),
    onPlan: (e) => plans.push(e),
  });
  const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-6'), middleware });
  const tools = {
    Read: tool({
      description: 'Reads a file from the workspace.',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      execute: async ({ path }: { path: string }) => file(path),
    }),
    // An object result: a `json` tool output.
    Grep: tool({
      description: 'Searches the workspace; returns matching lines as JSON.',
      inputSchema: jsonSchema<{ pattern: string }>({ type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] }),
      execute: async ({ pattern }: { pattern: string }) => ({ pattern, matches: ['src/m1.ts:1', 'src/m2.ts:1'] }),
    }),
    recall: createRecallTool({ conversationId: mode, store }),
  };
  const messages: ModelMessage[] = [];
  let deltas = 0;
  for (let t = 1; t <= 3; t++) {
    messages.push({ role: 'user', content: `Task ${t}: tidy the modules.` });
    const call = { model, system: SYSTEM, messages, tools, stopWhen: stepCountIs(10) };
    // 'switch': generateText, then streamText, then generateText, in one conversation.
    if (mode === 'generate' || (mode === 'switch' && t !== 2)) {
      messages.push(...(await added(await generateText(call))));
    } else {
      const result = streamText(call);
      for await (const part of result.fullStream) if (part.type === 'text-delta') deltas++;
      messages.push(...(await added(result)));
    }
  }
  const requests = server.requests.filter((r) => r.path === '/v1/messages');
  const stats = await conversationStats({ conversationId: mode, store });
  await server.close();
  return {
    requests: requests.length,
    statuses: requests.map((r) => r.status),
    reads: requests.map((r) => (r.response as { usage: { cache_read_input_tokens?: number } }).usage.cache_read_input_tokens ?? 0),
    markers: requests.map((r) => JSON.stringify(r.body).split('"cache_control"').length - 1),
    warnings: warnings.map((w) => `${w.code}: ${w.message}`),
    eager: requests.map((r) => JSON.stringify((r.body as { tools?: unknown }).tools ?? []).includes('"eager_input_streaming":true')),
    resyncs: plans.filter((p) => p.plan.resync !== undefined).length,
    recorded: stats?.totals.requests ?? 0,
    cacheRead: stats?.totals.cacheRead ?? 0,
    deltas,
    messages: messages.length,
  };
}

/**
 * The caller's own cacheControl on a message: removed, the engine's markers sent instead, and said in the
 * call's warnings (an `other` warning, which the V2, V3 and V4 warning types all have).
 */
async function callerMarker() {
  const server = await startFakeServer({ script: [[{ type: 'text', text: 'ok' }]] });
  const anthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test' });
  const codes: string[] = [];
  const model = wrapLanguageModel({
    model: anthropic('claude-sonnet-4-6'),
    middleware: cachepointMiddleware({ conversationId: 'own', store: new MemoryConversationStore(), onWarning: (w) => codes.push(w.code) }),
  });
  const result = await generateText({
    model,
    system: SYSTEM,
    messages: [{ role: 'user', content: 'Hi', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }],
  });
  const request = server.requests.find((r) => r.path === '/v1/messages');
  await server.close();
  return {
    codes,
    callWarnings: (result.warnings ?? []).filter((w) => JSON.stringify(w).includes('cachepoint:')).length,
    status: request?.status,
    markers: JSON.stringify(request?.body).split('"cache_control"').length - 1,
  };
}

console.log(JSON.stringify({ generate: await loop('generate'), stream: await loop('stream'), switch: await loop('switch'), own: await callerMarker() }));

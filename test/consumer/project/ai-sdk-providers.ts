/**
 * The AI SDK providers other than `@ai-sdk/anthropic` through `cachepointMiddleware`, compiled (strict,
 * skipLibCheck off) and run in a fresh project next to one `ai` major and the `@ai-sdk/amazon-bedrock` and
 * `@ai-sdk/openai` majors made for it (see ai-sdk-versions.consumer.ts): a Converse loop
 * (`createAmazonBedrock`, generate: the fake server does not speak Converse streaming) and OpenAI Responses and
 * Chat loops on a model with markers (GPT-5.6), 2 turns of (2 tool steps + an answer), against cachepoint's fake
 * server; and Claude through the AI Gateway (`createGateway`, model `anthropic/claude-sonnet-4.6`), the gateway
 * played by a fetch that runs the posted call options through this project's `@ai-sdk/anthropic` against the fake
 * Messages API, as the gateway runs them on its Anthropic provider. Only what ai 5, 6 and 7 all have. One JSON line out: per loop, the requests' statuses, cached tokens,
 * the markers each request carried, and the middleware's warnings.
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createGateway, generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type LanguageModel, type ModelMessage } from 'ai';
import { MemoryConversationStore } from 'cachepoint';
import { cachepointMiddleware, type CachepointWarning } from 'cachepoint/ai-sdk';
import { startFakeServer, type FakeMessagesServer, type ScriptEntry } from 'cachepoint/testing';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions, run the tests, and explain what you changed. '.repeat(90)}`;
const file = (p: string) => `// ${p}\n${'export const value = 1;\n'.repeat(80)}`;

function script(): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= 2; t++) {
    for (let r = 1; r <= 2; r++) {
      out.push([
        { type: 'text', text: `Turn ${t}, step ${r}: reading.` },
        { type: 'tool_use', id: `toolu_${t}_${r}`, name: 'Read', input: { path: `src/m${t}${r}.ts` } },
      ]);
    }
    out.push([{ type: 'text', text: `Turn ${t} done.` }]);
  }
  return out;
}

/** All the messages a call added: ai 7's `responseMessages`; ai 5 and 6's `response.messages` (every step there). */
async function added(result: { response: { messages: ModelMessage[] } }): Promise<ModelMessage[]> {
  const all = (result as { responseMessages?: ModelMessage[] }).responseMessages;
  return all ?? result.response.messages;
}

const MARKERS = /"cachePoint"|"prompt_cache_breakpoint"|"cache_control"/g;

/** The AI Gateway's language-model route, answered by the Anthropic provider on the fake server (generate only). */
function gatewayFetch(server: FakeMessagesServer): typeof fetch {
  const anthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test' });
  return async (_input, init) => {
    const r = await anthropic('claude-sonnet-4-6').doGenerate(JSON.parse(String(init?.body)));
    return Response.json({ content: r.content, finishReason: r.finishReason, usage: r.usage, providerMetadata: r.providerMetadata, warnings: r.warnings });
  };
}

async function loop(name: string, path: RegExp, model: (server: FakeMessagesServer) => LanguageModel) {
  const server = await startFakeServer({ script: script() });
  const warnings: CachepointWarning[] = [];
  const wrapped = wrapLanguageModel({
    model: model(server) as Parameters<typeof wrapLanguageModel>[0]['model'],
    middleware: cachepointMiddleware({ conversationId: name, store: new MemoryConversationStore(), onWarning: (w) => warnings.push(w) }),
  });
  const tools = {
    Read: tool({
      description: 'Reads a file from the workspace.',
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      execute: async ({ path }: { path: string }) => file(path),
    }),
  };
  const messages: ModelMessage[] = [];
  for (let t = 1; t <= 2; t++) {
    messages.push({ role: 'user', content: `Task ${t}: read the modules.` });
    messages.push(...(await added(await generateText({ model: wrapped, system: SYSTEM, messages, tools, stopWhen: stepCountIs(10) }))));
  }
  const requests = server.requests.filter((r) => path.test(r.path));
  await server.close();
  const cached = (usage: Record<string, unknown> | undefined): number => {
    if (usage === undefined) return -1;
    const details = (usage['input_tokens_details'] ?? usage['prompt_tokens_details']) as { cached_tokens?: number } | undefined;
    return Number(usage['cacheReadInputTokens'] ?? usage['cache_read_input_tokens'] ?? details?.cached_tokens ?? 0);
  };
  return {
    statuses: requests.map((r) => r.status),
    reads: requests.map((r) => cached((r.response as { usage?: Record<string, unknown> } | undefined)?.usage)),
    markers: requests.map((r) => (JSON.stringify(r.body).match(MARKERS) ?? []).length),
    warnings: warnings.map((w) => `${w.code}: ${w.message}`),
  };
}

const report = {
  converse: await loop('converse', /^\/model\//, (server) =>
    createAmazonBedrock({ region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test', baseURL: server.url })(
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ),
  ),
  responses: await loop('responses', /^\/v1\/responses$/, (server) => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).responses('gpt-5.6-terra')),
  chat: await loop('chat', /^\/v1\/chat\/completions$/, (server) => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-5.6-terra')),
  gateway: await loop('gateway', /^\/v1\/messages$/, (server) =>
    createGateway({ baseURL: `${server.url}/gateway`, apiKey: 'test', fetch: gatewayFetch(server) })('anthropic/claude-sonnet-4.6'),
  ),
};
console.log(JSON.stringify(report));

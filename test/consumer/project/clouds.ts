/**
 * The cloud clients of a new user's project: `AnthropicBedrock` and
 * `AnthropicVertex` (their own packages, on the project's one
 * @anthropic-ai/sdk) with their platforms' model ids, through `prepare` (a plain
 * loop, as docs/drop-in.md shows it) and through `Session` (streaming on
 * Vertex). The clients talk to cachepoint's fake server by `baseURL` alone (it
 * serves Bedrock's InvokeModel and Vertex's rawPredict routes, the model in the
 * URL, `anthropic_version` in the body); what they sent is reported as one JSON line.
 */
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import type Anthropic from '@anthropic-ai/sdk';
import { prepare, recordUsage, Session, MemoryConversationStore } from 'cachepoint';
import { startFakeServer } from 'cachepoint/testing';

const script = () =>
  [
    [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } }],
    [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { path: 'b.ts' } }],
    [{ type: 'text', text: 'Fixed.' }],
  ] as never;

const system = `You are a careful coding agent. ${'Follow the repository conventions. '.repeat(200)}`;
const tools: Anthropic.Tool[] = [
  { name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];
const file = (p: string) => `// ${p}\n${'export const value = 1;\n'.repeat(150)}`;
const statusesOf = (rs: readonly { status: number }[]) => rs.map((r) => r.status);
/** The route and the model each request's URL named (`model/{id}/invoke`, `models/{id}:streamRawPredict`). */
const routesOf = (rs: readonly { path: string }[]) => ({
  paths: rs.map((r) => r.path.replace(/^.*\/(model|models)\//, '$1/')),
  models: rs.map((r) => {
    const m = /\/model\/([^/]+)\/|\/models\/([^/:]+):/.exec(r.path);
    return decodeURIComponent(m?.[1] ?? m?.[2] ?? '');
  }),
});

// 1. Bedrock, a plain loop through prepare (docs/drop-in.md).
const bedrockServer = await startFakeServer({ script: script() });
const bedrock = new AnthropicBedrock({ awsRegion: 'us-east-1', awsAccessKey: 'test', awsSecretKey: 'test', baseURL: bedrockServer.url, maxRetries: 0 });
const store = new MemoryConversationStore();
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'The test in math.test.ts fails. Fix it.' }];
const bedrockReads: number[] = [];
for (;;) {
  const { params } = await prepare(
    { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', max_tokens: 1024, system, tools, messages },
    { conversationId: 'task-42', store },
  );
  const message = await bedrock.messages.create(params);
  bedrockReads.push(message.usage.cache_read_input_tokens ?? 0);
  await recordUsage(message, { conversationId: 'task-42', store });
  messages.push({ role: 'assistant', content: message.content });
  if (message.stop_reason !== 'tool_use') break;
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const b of message.content)
    if (b.type === 'tool_use') results.push({ type: 'tool_result', tool_use_id: b.id, content: file(String((b.input as { path: string }).path)) });
  messages.push({ role: 'user', content: results });
}
const bedrockStatuses = statusesOf(bedrockServer.requests);
const bedrockRoutes = routesOf(bedrockServer.requests);
await bedrockServer.close();

// 2. Vertex, a Session that streams.
const vertexServer = await startFakeServer({ script: script() });
const vertex = new AnthropicVertex({
  region: 'us-east5',
  projectId: 'my-project',
  // A stand-in for google-auth-library's client (no Google credentials offline).
  authClient: { projectId: 'my-project', getRequestHeaders: async () => new Headers({ authorization: 'Bearer test' }) } as never,
  baseURL: `${vertexServer.url}/v1`,
  maxRetries: 0,
});
const session = new Session({
  model: 'claude-sonnet-4-5@20250929',
  instructions: [system],
  tools,
  handlers: { Read: (a: { path: string }) => file(a.path) },
  request: { max_tokens: 1024 },
});
session.startTurn('The test in math.test.ts fails. Fix it.');
let text = '';
const vertexReads: number[] = [];
for (;;) {
  const message = await session.step(vertex, {}, { stream: true, onText: (t) => (text += t) });
  vertexReads.push(message.usage.cache_read_input_tokens ?? 0);
  if (message.stop_reason !== 'tool_use') break;
}
const vertexStatuses = statusesOf(vertexServer.requests);
const vertexRoutes = routesOf(vertexServer.requests);
await vertexServer.close();

console.log(
  JSON.stringify({
    bedrock: { statuses: bedrockStatuses, ...bedrockRoutes, reads: bedrockReads },
    vertex: { statuses: vertexStatuses, ...vertexRoutes, reads: vertexReads, text, recorded: session.stats().requests.length },
  }),
);

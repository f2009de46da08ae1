/**
 * A consumer's existing-style agent loop, compiled and run inside a fresh
 * project that installed the packed cachepoint tarball next to one version of
 * @anthropic-ai/sdk (see consumer.test.ts). It talks to cachepoint's fake
 * Messages API and prints what it saw as one JSON line.
 */
import Anthropic from '@anthropic-ai/sdk';
import { prepare, recordUsage, conversationStats, Session, MemoryConversationStore } from 'cachepoint';
import { startFakeServer } from 'cachepoint/testing';

const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions and explain what you changed. '.repeat(150)}`;
const tools: Anthropic.Tool[] = [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];
const file = (p: string) => `// ${p}\n${'export const value = 1;\n'.repeat(150)}`;

function script() {
  const out: { type: string; [k: string]: unknown }[][] = [];
  for (let t = 1; t <= 3; t++) {
    for (let r = 1; r <= 3; r++) out.push([{ type: 'tool_use', id: `toolu_${t}_${r}`, name: 'Read', input: { path: `src/m${r}.ts` } }]);
    out.push([{ type: 'text', text: `Turn ${t} done.` }]);
  }
  return out as never;
}

const clock = { now: 1_000_000 };

// 1. The loop people already have: a plain messages array, prepare() before each request.
const server = await startFakeServer({ script: script(), now: () => clock.now });
const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
const store = new MemoryConversationStore();
const messages: Anthropic.MessageParam[] = [];
for (let t = 1; t <= 3; t++) {
  messages.push({ role: 'user', content: `Task ${t}: tidy the modules.` });
  for (;;) {
    clock.now += 2_000;
    const { params } = await prepare(
      { model: 'claude-sonnet-4-6', max_tokens: 512, system: SYSTEM, tools, messages },
      { conversationId: 'c', store, now: clock.now },
    );
    const message = await client.messages.create(params);
    await recordUsage(message, { conversationId: 'c', store });
    messages.push({ role: 'assistant', content: message.content });
    if (message.stop_reason !== 'tool_use') break;
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const b of message.content)
      if (b.type === 'tool_use') results.push({ type: 'tool_result', tool_use_id: b.id, content: file((b.input as { path: string }).path) });
    messages.push({ role: 'user', content: results });
  }
}
const prepared = server.requests.filter((r) => r.path === '/v1/messages');
const stats = await conversationStats({ conversationId: 'c', store });

// 2. The same conversation through Session, with the same client type (structural: any SDK version).
clock.now = 1_000_000;
const server2 = await startFakeServer({ script: script(), now: () => clock.now });
const client2 = new Anthropic({ baseURL: server2.url, apiKey: 'test', maxRetries: 0 });
const session = new Session({
  model: 'claude-sonnet-4-6',
  instructions: [SYSTEM],
  tools,
  request: { max_tokens: 512 },
  handlers: { Read: ((a: { path: string }) => file(a.path)) as never },
  now: () => clock.now,
});
for (let t = 1; t <= 3; t++) {
  session.startTurn(`Task ${t}: tidy the modules.`);
  for (;;) {
    clock.now += 2_000;
    const message = await session.step(client2, {}, { stream: t === 2 });
    if (message.stop_reason !== 'tool_use') break;
  }
}
const viaSession = server2.requests.filter((r) => r.path === '/v1/messages');
// Streamed requests carry `stream: true`; everything else must be the same bytes.
const bodies = (rs: typeof prepared) => rs.map((r) => JSON.stringify({ ...(r.body as object), stream: undefined }));
console.log(
  JSON.stringify({
    requests: prepared.length,
    statuses: prepared.map((r) => r.status),
    reads: prepared.map((r) => (r.response as Anthropic.Message).usage.cache_read_input_tokens ?? 0),
    markers: prepared.map((r) => JSON.stringify(r.body).split('"cache_control"').length - 1),
    sameBytesAsSession: JSON.stringify(bodies(prepared)) === JSON.stringify(bodies(viaSession)),
    recorded: stats?.totals.requests,
    firstDifference: bodies(prepared).findIndex((b, i) => b !== bodies(viaSession)[i]),
  }),
);
await server.close();
await server2.close();

/**
 * A new user's Bedrock Converse loop on the AWS SDK's own client, as docs/providers.md shows it: the request
 * through `prepareConverse`, `ConverseCommand` (then `ConverseStreamCommand` read with `collectConverseStream`),
 * `recordConverseUsage`, the response's message pushed onto the user's Converse `messages` (the first one holds a
 * document). Against cachepoint's
 * fake server (its Converse routes); what was sent and read is reported as one JSON line.
 */
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type Message, type Tool } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { collectConverseStream, conversationStats, MemoryConversationStore, prepareConverse, recordConverseUsage } from 'cachepoint';
import { startFakeServer } from 'cachepoint/testing';

const script = () =>
  [
    [{ type: 'tool_use', id: 'tooluse_1', name: 'Read', input: { path: 'a.ts' } }],
    [{ type: 'tool_use', id: 'tooluse_2', name: 'Read', input: { path: 'b.ts' } }],
    [{ type: 'text', text: 'Fixed.' }],
  ] as never;

const system = `You are a careful coding agent. ${'Follow the repository conventions. '.repeat(200)}`;
const tools: Tool[] = [
  {
    toolSpec: {
      name: 'Read',
      description: 'Read a file',
      inputSchema: { json: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    },
  },
];
const file = (p: string) => `// ${p}\n${'export const value = 1;\n'.repeat(150)}`;

async function run(stream: boolean) {
  const server = await startFakeServer({ script: script() });
  // The fake server speaks HTTP/1.1; the runtime client's default handler is HTTP/2.
  const bedrock = new BedrockRuntimeClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
  const ref = { conversationId: `converse-${stream}`, store: new MemoryConversationStore() };
  // A document with the task (a plain-text file's bytes): prepareConverse sends it back as it came.
  const report = {
    document: { format: 'txt' as const, name: 'test output', source: { bytes: new TextEncoder().encode('FAIL math.test.ts: expected 3, got -1') } },
  };
  const messages: Message[] = [{ role: 'user', content: [{ text: 'The test fails. Fix it.' }, report] }];
  for (;;) {
    const { input } = await prepareConverse(
      {
        modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        system: [{ text: system }],
        toolConfig: { tools },
        messages,
        inferenceConfig: { maxTokens: 1024 },
      },
      { ...ref, tail: 'LIVE VIEW: 1 file open' },
    );
    const out = stream
      ? await collectConverseStream((await bedrock.send(new ConverseStreamCommand(input))).stream!)
      : await bedrock.send(new ConverseCommand(input));
    await recordConverseUsage(out, ref);
    const message = out.output!.message! as Message;
    messages.push(message);
    if (out.stopReason !== 'tool_use') break;
    messages.push({
      role: 'user',
      content: message.content!.flatMap((b) =>
        b.toolUse ? [{ toolResult: { toolUseId: b.toolUse.toolUseId!, content: [{ text: file(b.toolUse.toolUseId!) }] } }] : [],
      ),
    });
  }
  const stats = await conversationStats(ref);
  await server.close();
  return {
    statuses: server.requests.map((r) => r.status),
    paths: server.requests.map((r) => r.path.replace(/^\/model\/[^/]+\//, '')),
    reads: server.requests.map((r) => (r.response as unknown as { usage: { cacheReadInputTokens: number } }).usage.cacheReadInputTokens),
    recorded: stats?.requests.length ?? 0,
    documents: server.requests.map((r) => (r.body as { messages: { content: unknown[] }[] }).messages[0]!.content[1]),
  };
}

console.log(JSON.stringify({ converse: await run(false), stream: await run(true) }));

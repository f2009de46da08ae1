/**
 * `prepareConverse` in front of a plain Bedrock Converse loop (the user's own `messages` in Converse's shape, the
 * real AWS client against the fake server): every request after the first reads the cache, at most four cache
 * points, the tail last and unmarked, the usage recorded; streamed (`ConverseStreamCommand`) the same; a block it
 * cannot map is a typed error naming where.
 */
import { ConverseCommand, ConverseStreamCommand, type Message, type Tool } from '@aws-sdk/client-bedrock-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepareConverse, recordConverseUsage } from '../../src/conversation/prepare-converse.js';
import { conversationStats, type PreparePlan } from '../../src/conversation/prepare.js';
import { InvalidParamsError } from '../../src/errors.js';
import { collectConverseStream } from '../../src/providers/bedrock-stream.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import { bedrockClient, reasoningReads } from '../helpers/bedrock.js';
import { text } from '../helpers/build.js';

const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions. '.repeat(300)}`;
const TAIL = 'LIVE VIEW: 2 files open.';
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const tools: Tool[] = [
  {
    toolSpec: {
      name: 'Read',
      description: 'Reads a file.',
      inputSchema: { json: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    },
  },
];

const SCRIPT = reasoningReads(['src/math.ts', 'src/math.test.ts'], 'add subtracts; fixed.');

/** The user's loop, as a Converse user writes it, with prepareConverse and recordConverseUsage added. */
async function loop(stream: boolean) {
  let clock = 0;
  const server = await startFakeServer({ script: SCRIPT, now: () => (clock += 5_000) });
  servers.push(server);
  const bedrock = bedrockClient(server.url);
  const store = new MemoryConversationStore();
  const ref = { conversationId: 'task-42', store };
  const screenshot = { image: { format: 'png' as const, source: { bytes: Buffer.from(PNG, 'base64') } } };
  const messages: Message[] = [{ role: 'user', content: [{ text: 'The test in math.test.ts fails. Fix it.' }, screenshot] }];
  let now = 0;
  const plans: PreparePlan[] = [];
  for (;;) {
    const { input, plan } = await prepareConverse(
      {
        modelId: ID,
        system: [{ text: SYSTEM }],
        messages,
        toolConfig: { tools, toolChoice: { auto: {} } },
        inferenceConfig: { maxTokens: 2048 },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
      },
      { ...ref, tail: TAIL, now: (now += 5_000) },
    );
    expect(plan.resync).toBeUndefined();
    plans.push(plan);
    const out = stream
      ? await collectConverseStream((await bedrock.send(new ConverseStreamCommand(input))).stream!)
      : await bedrock.send(new ConverseCommand(input));
    expect(await recordConverseUsage(out, ref)).toBe(true);
    const message = out.output!.message! as Message;
    messages.push(message);
    const calls = message.content!.filter((b) => b.toolUse !== undefined);
    if (calls.length === 0) break;
    messages.push({
      role: 'user',
      content: calls.map((c) => ({ toolResult: { toolUseId: c.toolUse!.toolUseId!, content: [{ text: text(c.toolUse!.toolUseId!, 4000) }] } })),
    });
  }
  return { server, plans, stats: await conversationStats(ref) };
}

describe('prepareConverse', () => {
  it.each([false, true])('a plain Converse tool loop (stream: %s) reads the cache after the first request, tail last, usage recorded', async (stream) => {
    const { server, plans, stats } = await loop(stream);
    const requests = server.requests;
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
    requests.forEach((r, i) => {
      const body = r.body as { messages: { content: Record<string, unknown>[] }[]; toolConfig: { toolChoice?: unknown } };
      const points = JSON.stringify(body).split('"cachePoint"').length - 1;
      // One cachePoint per cache point of the render (the newest stable message block's among them), none elsewhere.
      expect(points).toBe(plans[i]!.cachePoints.length);
      expect(JSON.stringify(body.messages).split('"cachePoint"').length - 1).toBeGreaterThanOrEqual(1);
      expect(points).toBeLessThanOrEqual(4);
      expect(body.messages.at(-1)!.content.at(-1)).toEqual({ text: TAIL });
      expect(body.toolConfig.toolChoice).toEqual({ auto: {} });
      expect(r.body).toMatchObject({
        inferenceConfig: { maxTokens: 2048 },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
      });
      // The user's image goes out as the bytes it came as (base64 in the JSON body), every request.
      expect(body.messages[0]!.content[1]).toEqual({ image: { format: 'png', source: { bytes: PNG } } });
      const usage = (r.response as unknown as { usage: Record<string, number> }).usage;
      if (i > 0) expect(usage['cacheReadInputTokens']).toBeGreaterThan(0);
    });
    expect(stats?.requests).toHaveLength(3);
    expect(stats?.totals.cacheRead).toBeGreaterThan(0);
    expect(stats?.pendingUsage).toBe(false);
  });

  it('sees an edit of a re-sent Converse message (its content replaced, or a block pushed): history_edited', async () => {
    const ref = { conversationId: 'edit', store: new MemoryConversationStore() };
    const first: Message = { role: 'user', content: [{ text: 'Read a.ts.' }] };
    const answer: Message = { role: 'assistant', content: [{ text: 'Done.' }] };
    const next: Message = { role: 'user', content: [{ text: 'And b.ts?' }] };
    expect((await prepareConverse({ modelId: ID, messages: [first] }, ref)).plan.resync).toBeUndefined();
    expect((await prepareConverse({ modelId: ID, messages: [first, answer, next] }, ref)).plan.resync).toBeUndefined();
    first.content = [{ text: 'Read c.ts.' }];
    expect((await prepareConverse({ modelId: ID, messages: [first, answer, next] }, ref)).plan.resync?.reason).toBe('history_edited');
    answer.content!.push({ text: 'Also checked the tests.' });
    expect((await prepareConverse({ modelId: ID, messages: [first, answer, next] }, ref)).plan.resync?.reason).toBe('history_edited');
  });

  it('sends a json tool result as its JSON text', async () => {
    const messages: Message[] = [
      { role: 'user', content: [{ text: 'Read a.ts.' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: { path: 'a.ts' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ json: { lines: 3 } }] } }] },
    ];
    const { input } = await prepareConverse({ modelId: ID, messages, toolConfig: { tools } }, { conversationId: 'json', store: new MemoryConversationStore() });
    expect(input.messages[2]!.content[0]).toEqual({ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '{"lines":3}' }] } });
  });

  it('names a block it cannot map, and the missing model id', async () => {
    const store = new MemoryConversationStore();
    const refused = (block: object) =>
      prepareConverse({ modelId: ID, messages: [{ role: 'user', content: [{ text: 'Read it.' }, block as never] }] }, { conversationId: 'x', store });
    await expect(refused({ video: { format: 'mp4', source: { bytes: new Uint8Array([1]) } } })).rejects.toThrow(InvalidParamsError);
    await expect(refused({ video: { format: 'mp4', source: { bytes: new Uint8Array([1]) } } })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[InvalidParamsError: messages[0].content[1]: a Converse "video" block has no mapping in prepareConverse (text, image, document, toolUse, toolResult, reasoningContent and cachePoint do); send this request without cachepoint, or leave the block out]`,
    );
    await expect(refused({ guardContent: { text: { text: 'guarded' } } })).rejects.toThrow(
      /messages\[0\]\.content\[1\]: a Converse "guardContent" block has no mapping/,
    );
    // An S3 location (Bedrock reads S3 objects for Amazon Nova models; a Claude request carries the bytes).
    await expect(refused({ image: { format: 'png', source: { s3Location: { uri: 's3://bucket/a.png' } } } })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[InvalidParamsError: messages[0].content[1].image.source.s3Location: an S3 location is not read here (Bedrock takes S3 sources for Amazon Nova models; send Claude the bytes)]`,
    );
    await expect(refused({ document: { format: 'pdf', name: 'spec', source: { s3Location: { uri: 's3://bucket/spec.pdf' } } } })).rejects.toThrow(
      /messages\[0\]\.content\[1\]\.document\.source\.s3Location: an S3 location is not read here/,
    );
    // A document whose format is not given, or not one Converse names, or a source it does not map.
    await expect(refused({ document: { name: 'spec', source: { bytes: new Uint8Array([1]) } } })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[InvalidParamsError: messages[0].content[1].document.format: expected one of pdf, csv, doc, docx, xls, xlsx, html, txt, md (prepareConverse sends the document back by it)]`,
    );
    await expect(refused({ document: { format: 'pdf', name: 'spec', source: { content: [{ text: 'a' }] } } })).rejects.toThrow(
      /messages\[0\]\.content\[1\]\.document\.source: expected bytes or text/,
    );
    await expect(prepareConverse({ modelId: undefined, messages: [] }, { conversationId: 'x', store })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[InvalidParamsError: modelId: a Bedrock model id is required (e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0)]`,
    );
  });

  it('sends documents back as they came (bytes of each format, text, context, citations; in a message and in a tool result), a cachePoint after one that is a cache point', async () => {
    const server = await startFakeServer({ script: [[{ type: 'text', text: 'Read.' }], [{ type: 'text', text: 'Read.' }]] });
    servers.push(server);
    const bedrock = bedrockClient(server.url);
    const bytes = (s: string) => new TextEncoder().encode(s);
    const docs = [
      {
        document: { format: 'pdf' as const, name: 'Spec (v2)', source: { bytes: bytes('%PDF-1.4 spec') }, context: 'The spec.', citations: { enabled: true } },
      },
      { document: { format: 'csv' as const, name: 'rows', source: { bytes: bytes('a,b\n1,2\n') } } },
      { document: { format: 'md' as const, name: 'notes', source: { text: '# Notes\n\nKeep it short.' } } },
      { document: { format: 'docx' as const, name: 'letter [draft]', source: { bytes: new Uint8Array([80, 75, 3, 4, 0, 255]) } } },
    ];
    const messages: Message[] = [
      { role: 'user', content: [{ text: 'Summarize these.' }, ...docs] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: { path: 'report.txt' } } }] },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: 'tooluse_1',
              content: [{ text: 'The report:' }, { document: { format: 'txt', name: 'report', source: { bytes: bytes('All green.') } } }],
            },
          },
        ],
      },
    ];
    const request = { modelId: ID, system: [{ text: SYSTEM }], messages, toolConfig: { tools }, inferenceConfig: { maxTokens: 512 } };
    // The same request without cachepoint, then through it: what the AWS client sends is the same, but for the cachePoints.
    await bedrock.send(new ConverseCommand(request));
    const { input, plan } = await prepareConverse(request, { conversationId: 'docs', store: new MemoryConversationStore() });
    await bedrock.send(new ConverseCommand(input));
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    const withoutPoints = (x: unknown): unknown =>
      Array.isArray(x)
        ? x.filter((b) => !(typeof b === 'object' && b !== null && 'cachePoint' in b)).map(withoutPoints)
        : typeof x === 'object' && x !== null
          ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, withoutPoints(v)]))
          : x;
    const [direct, prepared] = server.requests.map((r) => r.body as { messages: { content: object[] }[] });
    expect(withoutPoints(prepared)).toEqual(direct);
    expect(JSON.stringify(prepared!.messages[0]).split('"cachePoint"').length - 1).toBe(0);
    // The newest stable block (④) is the tool result holding a document: its cachePoint follows it.
    expect(plan.cachePoints.length).toBeGreaterThanOrEqual(2);
    expect(prepared!.messages[2]!.content.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    // And the first message, a document last, with its own cachePoint once it is the newest stable block.
    const first = await prepareConverse({ ...request, messages: messages.slice(0, 1) }, { conversationId: 'doc-last', store: new MemoryConversationStore() });
    expect(first.input.messages[0]!.content.slice(-2)).toEqual([docs[3], { cachePoint: { type: 'default' } }]);
  });

  it('a manual-thinking loop whose open tool loop holds no thinking goes to Bedrock with thinking disabled, the other fields kept', async () => {
    // prepare turns thinking off for such a request (the API's own remedy); additionalModelRequestFields must say so too,
    // or Bedrock answers 400 ("a final assistant message must start with a thinking block").
    const server = await startFakeServer({ script: [[{ type: 'text', text: 'Done.' }]] });
    servers.push(server);
    const messages: Message[] = [
      { role: 'user', content: [{ text: 'Read a.ts.' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'Read', input: { path: 'a.ts' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'export const a = 1;' }] } }] },
    ];
    const { input, plan } = await prepareConverse(
      {
        modelId: ID,
        system: [{ text: SYSTEM }],
        messages,
        toolConfig: { tools },
        inferenceConfig: { maxTokens: 2048 },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 }, top_k: 5 },
      },
      { conversationId: 'off', store: new MemoryConversationStore() },
    );
    expect(plan.thinkingDisabled).toMatch(/does not start with a thinking block/);
    expect(input.additionalModelRequestFields).toEqual({ thinking: { type: 'disabled' }, top_k: 5 });
    await bedrockClient(server.url).send(new ConverseCommand(input));
    expect(server.requests.map((r) => r.status)).toEqual([200]);
  });

  it('a 1-hour cache point is a cachePoint with ttl "1h", the 5-minute ones after it have none', async () => {
    const { input, plan } = await prepareConverse(
      { modelId: ID, system: [{ text: SYSTEM }], messages: [{ role: 'user', content: [{ text: 'Hello.' }] }], toolConfig: { tools } },
      { conversationId: 'ttl', store: new MemoryConversationStore(), render: { ttl: { envelope: '1h' } } },
    );
    expect(plan.cachePoints.map((p) => p.ttl)).toEqual(['1h', '1h', '5m']);
    // In the provider's prefix order: the tool catalog (⓪), the system prompt (①), the messages (④).
    const points = (x: unknown) => JSON.stringify(x).match(/"cachePoint":\{[^}]*\}/g);
    expect([input.toolConfig, input.system, input.messages].map(points)).toEqual([
      ['"cachePoint":{"type":"default","ttl":"1h"}'],
      ['"cachePoint":{"type":"default","ttl":"1h"}'],
      ['"cachePoint":{"type":"default"}'],
    ]);
  });
});

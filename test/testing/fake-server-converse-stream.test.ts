/**
 * Bedrock's ConverseStream against the fake server: AWS's event-stream framing
 * (checked by the AWS SDK's own decoder), the real `ConverseStreamCommand`
 * through a rendered tool loop with Claude's reasoning, and the same loop
 * without streaming, which must record the same timeline and see the same usage.
 */
import { ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import type { ConverseResponseBlock } from '../../src/providers/bedrock.js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderMappingError } from '../../src/errors.js';
import { bedrockProfile, fromConverseOutput, toBedrockConverse } from '../../src/providers/bedrock.js';
import { collectConverseStream, ConverseStreamCollector } from '../../src/providers/bedrock-stream.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { crc32, encodeEventMessage } from '../../src/testing/fake-server-eventstream.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { bedrockClient } from '../helpers/bedrock.js';
import { newSession, text } from '../helpers/build.js';

const ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const utf8 = {
  toUtf8: (b: Uint8Array) => Buffer.from(b).toString('utf8'),
  fromUtf8: (s: string) => new Uint8Array(Buffer.from(s, 'utf8')),
};

describe('encodeEventMessage', () => {
  it('frames a message the AWS decoder accepts: lengths, string headers, both CRCs', () => {
    // The CRC-32 check value (the checksum of "123456789").
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const payload = Buffer.from('{"role":"assistant"}');
    const frame = encodeEventMessage({ ':event-type': 'messageStart', ':content-type': 'application/json', ':message-type': 'event' }, payload);
    const decoded = new EventStreamCodec(utf8.toUtf8, utf8.fromUtf8).decode(frame);
    expect(decoded.headers).toEqual({
      ':event-type': { type: 'string', value: 'messageStart' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    });
    expect(Buffer.from(decoded.body).toString()).toBe('{"role":"assistant"}');
    // One flipped payload bit: the decoder's message CRC refuses it.
    const bad = Buffer.from(frame);
    bad[bad.length - 6]! ^= 1;
    expect(() => new EventStreamCodec(utf8.toUtf8, utf8.fromUtf8).decode(bad)).toThrow(/checksum/i);
  });
});

/** Two tool rounds opening with signed reasoning (the first also redacted reasoning), then an answer after reasoning. */
function script(): ScriptEntry[] {
  return [
    [
      { type: 'thinking', thinking: 'The failing test reads math.ts; look at it first.', signature: 'EqQBCgIYAhIMsig1' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzixRedacted' },
      { type: 'tool_use', id: 'tooluse_a1', name: 'Read', input: { path: 'src/math.ts', range: [1, 40] } },
    ],
    [
      { type: 'thinking', thinking: 'Now the test file.', signature: 'EqQBCgIYAhIMsig2' },
      { type: 'tool_use', id: 'tooluse_a2', name: 'Read', input: { path: 'src/math.test.ts' } },
    ],
    [
      { type: 'thinking', thinking: 'The sign is flipped.', signature: 'EqQBCgIYAhIMsig3' },
      { type: 'text', text: 'The test fails because `add` subtracts. Fixed.' },
    ],
  ];
}

interface Sent {
  readonly blocks: ConverseResponseBlock[];
  readonly usage: unknown;
}

/** One turn of the script: render → send → record → answer the tools, a 5 s clock per request. */
async function loop(send: (r: Rendered) => Promise<Sent>): Promise<{ state: TimelineState; usages: unknown[] }> {
  const profile = bedrockProfile(ID);
  let state = startTurn(newSession(ID), 'The test in math.test.ts fails. Fix it.');
  const usages: unknown[] = [];
  for (let now = 0; ; now += 5_000) {
    const r = render(state, { profile, now });
    const out = await send(r);
    usages.push(out.usage);
    state = appendResponse(r.state, out.blocks);
    const calls = out.blocks.filter((b) => b.type === 'tool_use') as { id: string }[];
    if (calls.length === 0) return { state, usages };
    state = appendToolResults(
      state,
      calls.map((c) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: text(c.id, 4000) })),
    );
  }
}

async function serve(): Promise<FakeMessagesServer> {
  let clock = 0;
  const server = await startFakeServer({ script: script(), now: () => (clock += 5_000) });
  servers.push(server);
  return server;
}

const input = (r: Rendered) =>
  toBedrockConverse(r, {
    inferenceConfig: { maxTokens: 2048 },
    additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
  });

describe('ConverseStreamCommand against the fake server', () => {
  it('streams a rendered tool loop: cache reads from the second request, and the same timeline and usage as ConverseCommand', async () => {
    const streamed = await serve();
    const bedrock = bedrockClient(streamed.url);
    const viaStream = await loop(async (r) => {
      const out = await bedrock.send(new ConverseStreamCommand(input(r)));
      const response = await collectConverseStream(out.stream!);
      return { blocks: fromConverseOutput(response), usage: response.usage };
    });
    const plain = await serve();
    const bedrockPlain = bedrockClient(plain.url);
    const viaConverse = await loop(async (r) => {
      const out = await bedrockPlain.send(new ConverseCommand(input(r)));
      return { blocks: fromConverseOutput(out), usage: out.usage };
    });

    const requests = streamed.requests;
    expect(requests.map((q) => [q.path, q.status, q.stream])).toEqual([1, 2, 3].map(() => [`/model/${encodeURIComponent(ID)}/converse-stream`, 200, true]));
    const usages = viaStream.usages as { cacheReadInputTokens: number; cacheWriteInputTokens: number; inputTokens: number }[];
    expect(usages[0]!.cacheWriteInputTokens).toBeGreaterThan(0);
    for (const u of usages.slice(1)) expect(u.cacheReadInputTokens).toBeGreaterThan(0);
    // What the stream recorded is what the non-streamed call records, block for block (signatures, redacted bytes, tool input).
    expect(viaStream.usages).toEqual(viaConverse.usages);
    expect(viaStream.state).toEqual(viaConverse.state);
    const first = viaStream.state.turns[0]!.rounds[0]!.response;
    expect(first.map((b) => b.param.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
    expect(first[2]?.param).toMatchObject({ input: { path: 'src/math.ts', range: [1, 40] } });
  });
});

describe('ConverseStreamCollector', () => {
  it('refuses a stream cut off before messageStop, and a tool input that is not JSON, naming where', () => {
    const cut = new ConverseStreamCollector();
    cut.add({ messageStart: { role: 'assistant' } });
    cut.add({ contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hel' } } });
    expect(() => cut.response()).toThrow(ProviderMappingError);
    expect(() => cut.response()).toThrowErrorMatchingInlineSnapshot(
      `[ProviderMappingError: bedrock: stream: ended after 2 events without messageStop (the response is incomplete). Do not record this response: send the request again.]`,
    );

    const bad = new ConverseStreamCollector();
    bad.add({ contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'Read' } } } });
    bad.add({ contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"path":' } } } });
    bad.add({ messageStop: { stopReason: 'tool_use' } });
    expect(() => bad.response()).toThrowErrorMatchingInlineSnapshot(
      `[ProviderMappingError: bedrock: content[0].toolUse.input: the streamed tool input is not JSON ("{\\"path\\":"). Do not record this response: send the request again.]`,
    );
  });

  it('refuses a tool use that starts without its id or name, naming the event (not a tool_use id "undefined")', () => {
    const noId = new ConverseStreamCollector();
    noId.add({ messageStart: { role: 'assistant' } });
    expect(() => noId.add({ contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { name: 'Read' } } } })).toThrowErrorMatchingInlineSnapshot(
      `[ProviderMappingError: bedrock: event 1 (contentBlockStart of block 0): a tool use without its toolUseId. Do not record this response: send the request again.]`,
    );
    const noName = new ConverseStreamCollector();
    expect(() =>
      noName.add({ contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 't1', name: '' } } } }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[ProviderMappingError: bedrock: event 0 (contentBlockStart of block 2): a tool use without its name. Do not record this response: send the request again.]`,
    );
  });
});

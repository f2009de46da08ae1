/**
 * Thinking in an open tool loop (the request's tool results answer the last assistant message): the API needs that
 * message's thinking blocks back as the model produced them. Manual extended thinking (`thinking.type: "enabled"`)
 * refuses the request when the message does not start with one; any mode refuses one sent altered. Sources and dates:
 * src/internal/loop-thinking.ts, docs/models.md ("Thinking in an open tool loop").
 *
 * Every request goes through the real SDK client to the fake server in its strict mode (`loopThinking: 'strict'`:
 * the loop's thinking left out is refused too), on every path that rebuilds or edits what is sent: the Session, the
 * `prepare` door with a tail, a lost stored state (delete, a store that is down), a resync (history edited,
 * truncated), an exported and imported state, a forced hide in the open round, economy's prunes, a compaction, the AI
 * SDK middleware, and the Converse mapping. Each request with an open loop must be accepted with its loop's thinking
 * `kept` (byte for byte).
 */
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/errors.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { prepare, recordUsage } from '../../src/conversation/prepare.js';
import { exportState, importState } from '../../src/conversation/state.js';
import type { ConversationStore } from '../../src/conversation/types.js';
import { cachepointMiddleware } from '../../src/integrations/ai-sdk/index.js';
import { manualLoopThinkingIssue } from '../../src/internal/loop-thinking.js';
import { MODEL_PROFILES } from '../../src/models/profiles.js';
import { toBedrockConverse } from '../../src/providers/bedrock.js';
import { render } from '../../src/render/render.js';
import { Session } from '../../src/session/session.js';
import { startFakeServer, type FakeMessagesServer } from '../../src/testing/fake-server.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { appendRound, createTimeline, startTurn } from '../../src/timeline/edit.js';
import { INSTRUCTIONS, TOOLS, text } from '../helpers/build.js';
import { bigRead, fakeAnthropic, SYSTEM } from '../integrations/ai-sdk/harness.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MANUAL = { type: 'enabled', budget_tokens: 2048 } as const;
const TURNS = 3;
const ROUNDS = 4;

/**
 * Every response thinks first; round 2 of each turn thinks again after a text (interleaved), round 3 is redacted, the
 * last response of a turn thinks and answers.
 */
function script(): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= TURNS; t++) {
    for (let r = 1; r <= ROUNDS; r++) {
      const use = { type: 'tool_use' as const, id: `toolu_${t}_${r}`, name: 'Read', input: { path: `src/mod-${t}-${r}.ts` } };
      if (r === 3) out.push([{ type: 'redacted_thinking', data: `redacted-${t}-${r}` }, use]);
      else if (r === 2)
        out.push([
          { type: 'thinking', thinking: `Turn ${t}, step ${r}: look first.`, signature: `sig-${t}-${r}-a` },
          { type: 'text', text: 'Let me look.' },
          { type: 'thinking', thinking: `Turn ${t}, step ${r}: now read.`, signature: `sig-${t}-${r}-b` },
          use,
        ]);
      else out.push([{ type: 'thinking', thinking: `Turn ${t}, step ${r}: read file ${r}.`, signature: `sig-${t}-${r}` }, use]);
    }
    out.push([
      { type: 'thinking', thinking: `Turn ${t}: done.`, signature: `sig-${t}-end` },
      { type: 'text', text: `Turn ${t} done.` },
    ]);
  }
  return out;
}

/** Every request the server got answered, and each one with an open loop carried that loop's thinking as produced. */
function expectLoopsKept(s: FakeMessagesServer): void {
  const refused = s.requests.filter((r) => r.status !== 200).map((r) => r.error?.message);
  expect(refused).toEqual([]);
  const loops = s.requests.filter((r) => r.loopThinking !== undefined);
  expect(loops.length).toBeGreaterThan(0);
  expect(loops.map((r) => r.loopThinking)).toEqual(loops.map(() => 'kept'));
}

interface Hooks {
  /** Before request `step` (0-based), its messages built: may lose the state, edit the messages, swap the store. */
  before?(step: number, messages: Anthropic.MessageParam[], env: { store: ConversationStore; id: string }): Promise<Anthropic.MessageParam[] | undefined>;
  /** `prepare`'s hides for request `step`. */
  hide?(step: number): Parameters<typeof prepare>[1]['hide'];
  /** The store to use from request `step` on (swapped by `before`). */
  store?: ConversationStore;
}

/** A plain loop through `prepare` and the real SDK client: TURNS turns of ROUNDS tool rounds, a tail on every request. */
async function preparedLoop(
  model: string,
  policy: 'conservative' | 'economy',
  hooks: Hooks = {},
  render: Record<string, unknown> = {},
  thinking: unknown = MANUAL,
): Promise<void> {
  server = await startFakeServer({
    script: script(),
    loopThinking: 'strict',
    ...(render['profile'] ? { contextWindow: (render['profile'] as { contextWindow: number }).contextWindow } : {}),
  });
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
  const env = { store: (hooks.store ?? new MemoryConversationStore()) as ConversationStore, id: 'loop' };
  let messages: Anthropic.MessageParam[] = [];
  let now = 1_000_000;
  let step = 0;
  for (let t = 1; t <= TURNS; t++) {
    messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
    for (;;) {
      const edited = await hooks.before?.(step, messages, env);
      if (edited) messages = edited;
      now += 2_000;
      const hide = hooks.hide?.(step);
      const { params, headers } = await prepare(
        { model, max_tokens: 4096, thinking, system: INSTRUCTIONS.join('\n\n'), tools: TOOLS, messages } as Parameters<typeof prepare>[0],
        {
          conversationId: env.id,
          store: env.store,
          now,
          tail: `live view ${step}: ${'workspace listing '.repeat(40)}`,
          render: { policy, ...render },
          ...(hide ? { hide } : {}),
        },
      );
      const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers });
      await recordUsage(message, { conversationId: env.id, store: env.store, now });
      step++;
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
      const use = message.content.find((b) => b.type === 'tool_use');
      if (!use) break;
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: text(use.id, 1500) }] });
    }
  }
  expectLoopsKept(server);
}

/** The index of the last message holding a tool_result (where a rewind goes back to). */
const lastResult = (messages: readonly Anthropic.MessageParam[], before = messages.length): number => {
  for (let i = before - 1; i >= 0; i--)
    if (Array.isArray(messages[i]!.content) && (messages[i]!.content as { type: string }[]).some((b) => b.type === 'tool_result')) return i;
  return -1;
};

/** A store that fails its load and save while `down` is true (Redis unreachable), else the memory store's. */
/** One generateText tool loop through the middleware (a fresh memory store), with the provider's thinking options. */
async function middlewareLoop(
  model: Parameters<typeof wrapLanguageModel>[0]['model'],
  conversationId: string,
  providerOptions: NonNullable<Parameters<typeof generateText>[0]['providerOptions']>,
): Promise<void> {
  await generateText({
    model: wrapLanguageModel({ model, middleware: cachepointMiddleware({ conversationId, store: new MemoryConversationStore() }) }),
    system: SYSTEM,
    prompt: 'Tidy up.',
    tools: { Read: bigRead },
    stopWhen: stepCountIs(10),
    providerOptions,
  });
}

function flakyStore(): ConversationStore & { down: boolean } {
  const inner = new MemoryConversationStore();
  const s: ConversationStore & { down: boolean } = {
    down: false,
    async load(id) {
      if (s.down) throw new Error('connect ECONNREFUSED');
      return inner.load(id);
    },
    async save(record, expected) {
      if (s.down) throw new Error('connect ECONNREFUSED');
      return inner.save(record, expected);
    },
    delete: (id) => inner.delete(id),
  };
  return s;
}

describe('the fake server checks the thinking of an open tool loop (the real SDK client)', () => {
  const loopRequest = (assistant: Anthropic.ContentBlockParam[], thinking: unknown = MANUAL) =>
    ({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking,
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'read a' },
        { role: 'assistant', content: assistant },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' }] },
      ],
    }) as Anthropic.MessageCreateParamsNonStreaming;
  const first: ScriptEntry = [
    { type: 'thinking', thinking: 'Read a.', signature: 'sig-1' },
    { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } },
  ];

  it('manual thinking: refuses the loop without its thinking with the API words, accepts it as produced', async () => {
    server = await startFakeServer({ script: [first, [{ type: 'text', text: 'ok' }], [{ type: 'text', text: 'ok' }]] });
    const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
    const m = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: MANUAL,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'read a' }],
    });
    const use = m.content[1]!;
    await expect(client.messages.create(loopRequest([use as Anthropic.ContentBlockParam]))).rejects.toThrow(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block',
    );
    await client.messages.create(loopRequest(m.content as Anthropic.ContentBlockParam[]));
    expect(server.requests.at(-1)!.loopThinking).toBe('kept');
  });

  it('any mode: refuses the loop with its thinking altered; lenient accepts it left out, strict refuses that too', async () => {
    for (const rule of ['lenient', 'strict'] as const) {
      server = await startFakeServer({ script: [first, [{ type: 'text', text: 'ok' }]], loopThinking: rule });
      const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
      const adaptive = { type: 'adaptive' };
      const m = await client.messages.create({ ...loopRequest([], adaptive), messages: [{ role: 'user', content: 'read a' }] });
      const [thought, use] = m.content as [Anthropic.ThinkingBlockParam, Anthropic.ContentBlockParam];
      await expect(client.messages.create(loopRequest([{ ...thought, thinking: 'Read b.' }, use], adaptive))).rejects.toThrow(
        'messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified.',
      );
      const omitted = client.messages.create(loopRequest([use], adaptive));
      if (rule === 'strict') await expect(omitted).rejects.toThrow("loopThinking 'strict'");
      else {
        await omitted;
        expect(server.requests.at(-1)!.loopThinking).toBe('omitted');
      }
      await server.close();
      server = undefined;
    }
  });

  it('validateRequest names the final assistant message (a merged run names its first message); adaptive and a new turn pass', () => {
    const thought = { type: 'thinking', thinking: 't', signature: 's' };
    const use = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] };
    const body = (messages: unknown[], thinking: unknown = MANUAL) => ({ model: 'claude-sonnet-4-5', max_tokens: 10, thinking, messages });
    const split = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'Looking.' }, { role: 'assistant', content: [use] }, result];
    expect(validateRequest(body(split))?.message).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`/);
    expect(validateRequest(body([{ role: 'user', content: 'a' }, { role: 'assistant', content: [thought, use] }, result]))).toBeNull();
    expect(validateRequest(body([{ role: 'user', content: 'a' }, { role: 'assistant', content: [use] }, result], { type: 'adaptive' }))).toBeNull();
    const closed = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [thought, use] },
      result,
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'next' },
    ];
    expect(validateRequest(body(closed))).toBeNull();
    expect(
      manualLoopThinkingIssue(MANUAL, [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'd' }, use] },
        result,
      ]),
    ).toBeUndefined();
  });
});

describe('manual thinking on a model that takes only adaptive thinking (Claude 4.7 and later)', () => {
  it("the fake server answers the API's 400; prepare and the Session refuse it first, naming `thinking`", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'hi' }];
    for (const model of ['claude-opus-4-7', 'claude-sonnet-5-5', 'claude-opus-5', 'claude-mythos-preview'])
      expect(validateRequest({ model, max_tokens: 10, thinking: MANUAL, messages })?.message).toBe(
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
      );
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-3-7-sonnet-20250219'])
      expect(validateRequest({ model, max_tokens: 10, thinking: MANUAL, messages })).toBeNull();
    expect(validateRequest({ model: 'claude-sonnet-5-5', max_tokens: 10, thinking: { type: 'adaptive' }, messages })).toBeNull();
    const run = prepare(
      { model: 'claude-sonnet-5-5', max_tokens: 4096, thinking: MANUAL, messages },
      { conversationId: 'm', store: new MemoryConversationStore() },
    );
    await expect(run).rejects.toThrow(InvalidParamsError);
    await expect(run).rejects.toThrow('thinking: thinking.type "enabled" (manual extended thinking) is refused by claude-sonnet-5-5');
    const session = new Session({ model: 'claude-opus-4-7', instructions: INSTRUCTIONS, tools: TOOLS, request: { thinking: MANUAL } });
    session.startTurn('hi');
    await expect(session.request({ max_tokens: 4096 })).rejects.toThrow('is refused by claude-opus-4-7');
  });
});

describe('prepare refuses to produce a manual-thinking loop without its thinking', () => {
  // A turn that holds no thinking at all goes with thinking disabled instead (loop-thinking-compact.test.ts).
  it("names the caller's message (a typed error instead of the API's 400) when the turn's thinking came later", async () => {
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'read a' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'b next', signature: 's' },
          { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { path: 'b' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'b' }] },
    ];
    const run = prepare(
      { model: 'claude-sonnet-4-5', max_tokens: 4096, thinking: MANUAL, tools: TOOLS, messages },
      { conversationId: 'x', store: new MemoryConversationStore() },
    );
    await expect(run).rejects.toThrow(InvalidParamsError);
    await expect(run).rejects.toThrow(
      'messages[1]: the assistant turn these tool results continue (its first assistant message) does not start with a thinking block',
    );
  });
});

describe('every path keeps the thinking of the open tool loop byte for byte (manual thinking, strict server)', () => {
  const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-6', 'claude-haiku-4-5'];

  for (const model of MODELS) {
    for (const policy of ['conservative', 'economy'] as const) {
      it(`prepare, a tail on every request: ${model}, ${policy}`, async () => {
        await preparedLoop(model, policy);
      });
    }

    it(`prepare, the stored state deleted in the middle of a loop, then the store down for one request: ${model}`, async () => {
      const store = flakyStore();
      await preparedLoop(model, 'economy', {
        store,
        async before(step, _m, env) {
          if (step === 6) await env.store.delete(env.id);
          store.down = step === 8;
          return undefined;
        },
      });
    });

    it(`prepare, history edited and truncated (a resync), then an exported and imported state: ${model}`, async () => {
      let imported: MemoryConversationStore | undefined;
      await preparedLoop(model, 'economy', {
        async before(step, messages, env) {
          if (step === 3) return [{ role: 'user', content: 'Task 1: tidy up the modules, carefully.' }, ...messages.slice(1)];
          // A rewind to the previous round's tool result: the loop goes on from there.
          if (step === 8) return messages.slice(0, lastResult(messages, lastResult(messages)) + 1);
          if (step === 10) {
            const record = await env.store.load(env.id);
            imported = new MemoryConversationStore();
            await imported.save(importState(exportState(record!), env.id), null);
            env.store = imported;
          }
          return undefined;
        },
      });
      expect(imported).toBeDefined();
    });

    it(`prepare, a forced hide of the open round's result and of an earlier one: ${model}`, async () => {
      await preparedLoop(model, 'conservative', {
        hide: (step) =>
          step === 3
            ? [
                { toolUseId: 'toolu_1_3', force: true },
                { toolUseId: 'toolu_1_1', force: true },
              ]
            : undefined,
      });
    });

    it(`prepare, compactions in the middle of loops (a small window): ${model}`, async () => {
      const profile = { ...MODEL_PROFILES[model]!, contextWindow: 6_000, minCacheableTokens: 1024 };
      await preparedLoop(model, 'conservative', {}, { profile });
      const summaries = server!.requests.filter((r) => JSON.stringify(r.body).includes('[Summary of '));
      expect(summaries.length).toBeGreaterThan(0);
      // Some of them in the middle of a loop (the request's tool results answer a response the summary left alone).
      expect(summaries.filter((r) => r.loopThinking === 'kept').length).toBeGreaterThan(0);
    });
  }

  for (const model of ['claude-sonnet-5-5', 'claude-opus-5-5']) {
    for (const policy of ['conservative', 'economy'] as const) {
      it(`a model that binds thinking (adaptive): prepare with a tail folded into the history, ${model}, ${policy}`, async () => {
        await preparedLoop(model, policy, {}, {}, { type: 'adaptive' });
      });
    }
  }

  it('the Session (both policies, a tail)', async () => {
    for (const policy of ['conservative', 'economy'] as const) {
      server = await startFakeServer({ script: script(), loopThinking: 'strict' });
      const client = new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
      const session = new Session({
        model: 'claude-opus-4-6',
        instructions: INSTRUCTIONS,
        tools: TOOLS,
        render: { policy },
        request: { thinking: MANUAL },
        handlers: { Read: ((args: { path: string }) => text(args.path, 1500)) as never },
      });
      for (let t = 1; t <= TURNS; t++) {
        session.startTurn(`Task ${t}: tidy up the modules.`);
        for (let r = 0; ; r++) {
          session.setTail(`live view ${t}.${r}`);
          const message = await session.step(client, { max_tokens: 4096 }, { stream: r % 2 === 1 });
          if (message.stop_reason !== 'tool_use') break;
        }
      }
      expectLoopsKept(server);
      await server.close();
      server = undefined;
    }
  });

  it('the AI SDK middleware (generateText, manual thinking)', async () => {
    const { server: s, provider } = await fakeAnthropic({ script: script().slice(0, ROUNDS + 1), loopThinking: 'strict' });
    server = s;
    await middlewareLoop(provider('claude-sonnet-4-5'), 'ai', { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } });
    expectLoopsKept(s);
  });

  it('the AI SDK middleware on Bedrock Converse (reasoning, redacted reasoning)', async () => {
    server = await startFakeServer({ script: script().slice(0, ROUNDS + 1), loopThinking: 'strict' });
    const bedrock = createAmazonBedrock({ region: 'us-east-1', apiKey: 'test', baseURL: server.url });
    await middlewareLoop(bedrock('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), 'bedrock', {
      bedrock: { reasoningConfig: { type: 'enabled', budgetTokens: 2048 } },
    });
    const sent = server.requests.map((r) => (r.body as { additionalModelRequestFields?: unknown }).additionalModelRequestFields);
    expect(sent[0]).toMatchObject({ thinking: { type: 'enabled' } });
    expectLoopsKept(server);
    expect(server.requests.filter((r) => r.loopThinking !== undefined)).toHaveLength(ROUNDS);
  });

  it('the Converse mapping: the open round leads with its reasoning, as produced, and the route accepts it', async () => {
    let state = createTimeline({ model: 'claude-sonnet-4-5', instructions: INSTRUCTIONS, tools: TOOLS });
    state = startTurn(state, 'read a');
    const response = script()[1] as Anthropic.ContentBlockParam[];
    state = appendRound(state, response, [{ type: 'tool_result', tool_use_id: 'toolu_1_2', content: text('a', 900) }]);
    const input = toBedrockConverse(render(state), { inferenceConfig: { maxTokens: 4096 } });
    const last = input.messages!.at(-2)!;
    expect(last.role).toBe('assistant');
    expect(last.content!.map((b) => Object.keys(b)[0])).toEqual(['reasoningContent', 'text', 'reasoningContent', 'toolUse']);
    expect((last.content![0] as { reasoningContent: { reasoningText: unknown } }).reasoningContent.reasoningText).toEqual({
      text: 'Turn 1, step 2: look first.',
      signature: 'sig-1-2-a',
    });
  });
});

/**
 * The middleware maps each call incrementally: the leading messages equal (as
 * plain data) to the conversation's last call keep their mapping, and only
 * the rest is mapped. Every shortcut is checked against the full mapping:
 * the same scenario through one middleware (which keeps the last call) and
 * through a new middleware per call (which maps everything), each on its own
 * store, must give the same transformed call, the same plan (resync
 * included) and the same warnings, call by call.
 */
import { generateText, stepCountIs, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import type { PreparePlan } from '../../../src/conversation/prepare.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import { mapPrompt, toAnthropicPrompt } from '../../../src/integrations/ai-sdk/to-anthropic.js';
import type { CallOptions, Prompt, PromptMessage } from '../../../src/integrations/ai-sdk/types.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { agentTools, bodies, FILES, fakeAnthropic, MODEL, script, SYSTEM } from './harness.js';

type Message = PromptMessage;
const MODEL_INFO = { provider: 'anthropic.messages', modelId: MODEL, specificationVersion: 'v4' };

const TOOLS = [
  { type: 'function', name: 'Read', description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  { type: 'function', name: 'Grep', description: 'Searches.', inputSchema: { type: 'object', properties: { pattern: { type: 'string' } } } },
] as unknown as NonNullable<CallOptions['tools']>;

/** A session of `turns` turns of `rounds` tool rounds each (thinking, text, two tool calls, their results), as AI SDK prompt messages. */
function session(turns: number, rounds: number): Message[] {
  const out: Message[] = [{ role: 'system', content: SYSTEM }];
  const paths = Object.keys(FILES);
  for (let t = 1; t <= turns; t++) {
    out.push({ role: 'user', content: [{ type: 'text', text: `Task ${t}: fix the bug in module ${t}.` }] });
    for (let r = 1; r <= rounds; r++) {
      const id = `toolu_${t}_${r}`;
      const path = paths[(t + r) % paths.length]!;
      out.push({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `Thinking about step ${r}.`, providerOptions: { anthropic: { signature: `sig-${t}-${r}` } } },
          { type: 'text', text: `Turn ${t}, step ${r}: reading.` },
          { type: 'tool-call', toolCallId: `${id}_a`, toolName: 'Read', input: { path } },
          { type: 'tool-call', toolCallId: `${id}_b`, toolName: 'Grep', input: { pattern: `fn${r}`, options: { flags: ['i'], limit: r } } },
        ],
      });
      out.push({
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: `${id}_a`, toolName: 'Read', output: { type: 'text', value: FILES[path]! } },
          { type: 'tool-result', toolCallId: `${id}_b`, toolName: 'Grep', output: { type: 'json', value: { matches: [`${path}:1`] } } },
        ],
      });
    }
    out.push({ role: 'assistant', content: [{ type: 'text', text: `Turn ${t} done.` }] });
  }
  return out;
}

/** The prompt the request before `messages[i]` (an assistant message) sends. */
function upTo(messages: readonly Message[], i: number): Message[] {
  return messages.slice(0, i);
}

/** New objects with the same values, as the AI SDK hands every call (`deep`: new strings too, as after a JSON round trip). */
function fresh(prompt: readonly Message[], deep = false): Prompt {
  if (deep) return JSON.parse(JSON.stringify(prompt)) as Prompt;
  return prompt.map((m) => (typeof m.content === 'string' ? { ...m } : { ...m, content: m.content.map((p) => ({ ...p })) })) as Prompt;
}

/** `prompt` with the Grep call's input of message `at` (an assistant message) replaced. */
function withGrepInput(prompt: readonly Message[], at: number, input: unknown): Message[] {
  return prompt.map((m, i) =>
    i === at && m.role === 'assistant' ? { ...m, content: m.content.map((c) => (c.type === 'tool-call' && c.toolName === 'Grep' ? { ...c, input } : c)) } : m,
  );
}

/** `prompt` with part `k` of message `at` (a tool message) changed by `edit`. */
function withResult(prompt: readonly Message[], at: number, k: number, edit: (part: Record<string, unknown>) => Record<string, unknown>): Message[] {
  return prompt.map((m, i) =>
    i === at && m.role === 'tool' ? ({ ...m, content: m.content.map((c, j) => (j === k ? edit(c as unknown as Record<string, unknown>) : c)) } as Message) : m,
  );
}

const MARKED = { anthropic: { cacheControl: { type: 'ephemeral' } } };

interface Seen {
  readonly out: unknown;
  readonly plan?: PreparePlan;
  readonly warnings: readonly string[];
}

/** Two doors on the same calls: `kept` (one middleware, incremental) and `full` (a new middleware per call: everything mapped). */
function doors() {
  const keptStore = new MemoryConversationStore();
  const fullStore = new MemoryConversationStore();
  const plans: { kept: PreparePlan | undefined; full: PreparePlan | undefined } = { kept: undefined, full: undefined };
  const warnings: { kept: CachepointWarning[]; full: CachepointWarning[] } = { kept: [], full: [] };
  let at = 1_000_000;
  const options = (side: 'kept' | 'full', store: MemoryConversationStore) => ({
    conversationId: 'conv',
    store,
    now: () => at,
    onPlan: (e: { plan: PreparePlan }) => {
      plans[side] = e.plan;
    },
    onWarning: (w: CachepointWarning) => warnings[side].push(w),
  });
  const kept = cachepointMiddleware(options('kept', keptStore));
  async function call(side: 'kept' | 'full', params: CallOptions, type: 'generate' | 'stream'): Promise<Seen> {
    const mw = side === 'kept' ? kept : cachepointMiddleware(options('full', fullStore));
    plans[side] = undefined;
    warnings[side].length = 0;
    const out = await mw.transformParams!({ params, type, model: MODEL_INFO } as never);
    return { out, ...(plans[side] ? { plan: plans[side] } : {}), warnings: warnings[side].map((w) => w.code) };
  }
  /** Sends the same call through both doors (each gets its own new objects) and checks they agree. */
  return async (prompt: readonly Message[], extra: Partial<CallOptions> = {}, type: 'generate' | 'stream' = 'generate', deep = false) => {
    at += 30_000;
    const params = (p: Prompt) => ({ prompt: p, tools: TOOLS, maxOutputTokens: 1024, ...extra }) as CallOptions;
    const a = await call('kept', params(fresh(prompt, deep)), type);
    const b = await call('full', params(fresh(prompt)), type);
    expect(a.out).toEqual(b.out);
    // tool_streaming_switched compares with this process's previous call of the conversation, which a new middleware
    // per call never has: the one warning only the kept door can give.
    expect(a.warnings.filter((w) => w !== 'tool_streaming_switched')).toEqual(b.warnings);
    expect(a.plan?.resync).toEqual(b.plan?.resync);
    expect(a.plan?.cachePoints).toEqual(b.plan?.cachePoints);
    return a;
  };
}

describe('mapPrompt reuses the mapping of the messages a call shares with the previous one', () => {
  const all = session(2, 3);
  const n = all.length;

  it('an appended round: the shared messages are the same objects, the result equals the full mapping', () => {
    const first = mapPrompt({ prompt: fresh(upTo(all, n - 3)), tools: TOOLS } as CallOptions, 'generate');
    const call = { prompt: fresh(upTo(all, n - 1)), tools: TOOLS } as CallOptions;
    const next = mapPrompt(call, 'generate', first.mapped);
    expect(next.mapped.result).toEqual(toAnthropicPrompt(call, 'generate'));
    expect(next.reuse.same).toBe(n - 3);
    expect(next.reuse.messages).toBeGreaterThan(0);
    for (let j = 0; j < next.reuse.messages; j++) expect(next.mapped.result.messages[j]).toBe(first.mapped.result.messages[j]);
    expect(next.mapped.result.system).toBe(first.mapped.result.system);
    expect(next.mapped.result.tools).toBe(first.mapped.result.tools);
  });

  it('the last shared message merges with a new one (a user message after tool results): it is mapped again, not reused', () => {
    const base = upTo(all, 4); // system, user, assistant, tool
    const first = mapPrompt({ prompt: fresh(base) } as CallOptions, 'generate');
    const call = { prompt: fresh([...base, { role: 'user', content: [{ type: 'text', text: 'also check the tests' }] }]) } as CallOptions;
    const next = mapPrompt(call, 'generate', first.mapped);
    expect(next.reuse.same).toBe(4);
    expect(next.reuse.messages).toBe(2); // user, assistant; the tool results' user message takes the new text too
    expect(next.mapped.result).toEqual(toAnthropicPrompt(call, 'generate'));
    expect(next.mapped.result.messages[2]).not.toBe(first.mapped.result.messages[2]);
  });

  it('values that differ anywhere stop the reuse there: text, tool input (deep, key order), providerOptions, a removed message, sendReasoning, tools', () => {
    const prompt = upTo(all, n - 1);
    const first = mapPrompt({ prompt: fresh(prompt), tools: TOOLS } as CallOptions, 'generate');
    const edits: [string, (p: Message[]) => Message[], number][] = [
      ['old user text', (p) => p.map((m, i) => (i === 1 ? { role: 'user', content: [{ type: 'text', text: 'Task 1, reworded.' }] } : m)), 1],
      ['nested tool input value', (p) => withGrepInput(p, 2, { pattern: 'fn1', options: { flags: ['g'], limit: 1 } }), 2],
      ['tool input key order', (p) => withGrepInput(p, 2, { options: { flags: ['i'], limit: 1 }, pattern: 'fn1' }), 2],
      ['providerOptions of an old part', (p) => withResult(p, 3, 0, (c) => ({ ...c, providerOptions: MARKED })), 3],
      ['a removed message', (p) => [...p.slice(0, 4), ...p.slice(6)], 4],
    ];
    for (const [what, edit, at] of edits) {
      const call = { prompt: fresh(edit(prompt)), tools: TOOLS } as CallOptions;
      const next = mapPrompt(call, 'generate', first.mapped);
      expect(next.reuse.same, what).toBe(at);
      expect(next.mapped.result, what).toEqual(toAnthropicPrompt(call, 'generate'));
    }
    const noReasoning = { prompt: fresh(prompt), tools: TOOLS, providerOptions: { anthropic: { sendReasoning: false } } } as CallOptions;
    const r = mapPrompt(noReasoning, 'generate', first.mapped);
    expect(r.reuse.same).toBe(0);
    expect(r.mapped.result).toEqual(toAnthropicPrompt(noReasoning, 'generate'));
    const otherTools = { prompt: fresh(prompt), tools: TOOLS.slice(0, 1) } as CallOptions;
    const t = mapPrompt(otherTools, 'generate', first.mapped);
    expect(t.mapped.result.tools).toEqual(toAnthropicPrompt(otherTools, 'generate').tools);
    const streamed = { prompt: fresh(prompt), tools: TOOLS } as CallOptions;
    expect(mapPrompt(streamed, 'stream', first.mapped).mapped.result.tools).toEqual(toAnthropicPrompt(streamed, 'stream').tools);
  });
});

describe('the middleware, incremental, against a full mapping per call', () => {
  it('a tool loop over two turns, the prompt rebuilt per call (new objects, and new strings)', async () => {
    const all = session(2, 3);
    const both = doors();
    for (let i = 2; i <= all.length; i++) {
      if (all[i - 1]!.role === 'assistant') continue;
      await both(upTo(all, i), {}, 'generate', i % 2 === 0);
    }
  });

  it('an edited old part, an edited tool input, a changed providerOptions, a removed message: same requests, same resyncs', async () => {
    const all = session(3, 3);
    const both = doors();
    const end = all.length - 1;
    for (let i = 2; i <= end; i++) if (all[i - 1]!.role !== 'assistant') await both(upTo(all, i));
    const prompt = upTo(all, end);
    // one changed old part (the first tool result's content)
    const edited = withResult(prompt, 3, 0, (c) => ({ ...c, output: { type: 'text', value: 'edited' } }));
    const a = await both(edited);
    expect(a.plan?.resync).toBeDefined();
    await both(prompt);
    // an edited tool input, deep inside
    const input = withGrepInput(prompt, 4, { pattern: 'fn2', options: { flags: ['i'], limit: 99 } });
    expect((await both(input)).plan?.resync).toBeDefined();
    // a caller marker on an old part: removed, with the warning, on both doors
    const marked = withResult(prompt, 3, 1, (c) => ({ ...c, providerOptions: MARKED }));
    expect((await both(marked)).warnings).toContain('caller_cache_control');
    expect((await both(prompt)).warnings).not.toContain('caller_cache_control');
    // a removed message pair in the middle, then the last round dropped (a retry)
    await both([...prompt.slice(0, 4), ...prompt.slice(6)]);
    await both(prompt.slice(0, end - 2));
    await both(prompt);
    // sendReasoning off, then a streamed call (its tools differ), then generate again
    await both(prompt, { providerOptions: { anthropic: { sendReasoning: false } } });
    expect((await both(prompt, {}, 'stream')).warnings).toContain('tool_streaming_switched');
    expect((await both(prompt)).warnings).toContain('tool_streaming_switched');
  });
});

describe('with the real AI SDK (generateText, @ai-sdk/anthropic, the fake server)', () => {
  const servers: FakeMessagesServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  /** Three turns of a tool loop; before turn 3 an old tool result and an old tool input are edited in the kept messages. `perCall`: a new middleware for every call. */
  async function loop(perCall: boolean) {
    const fake = await fakeAnthropic({ script: script(3, 2) });
    servers.push(fake.server);
    const store = new MemoryConversationStore();
    const seen: CallOptions[] = [];
    const plans: PreparePlan[] = [];
    const make = () => cachepointMiddleware({ conversationId: 'real', store, onPlan: (e) => plans.push(e.plan) });
    let current = make();
    const middleware: LanguageModelMiddleware = {
      specificationVersion: 'v4',
      transformParams: async (args) => {
        seen.push(args.params);
        if (perCall) current = make();
        return current.transformParams!(args);
      },
      wrapGenerate: async (args) => current.wrapGenerate!(args),
    };
    const model = wrapLanguageModel({ model: fake.provider(MODEL), middleware });
    let messages: ModelMessage[] = [];
    for (let t = 1; t <= 3; t++) {
      if (t === 3) {
        messages = messages.map((m) => {
          if (m.role === 'tool' && Array.isArray(m.content)) {
            return {
              ...m,
              content: m.content.map((p, k) => (k === 0 && p.type === 'tool-result' ? { ...p, output: { type: 'text' as const, value: 'edited' } } : p)),
            };
          }
          if (m.role === 'assistant' && Array.isArray(m.content)) {
            return { ...m, content: m.content.map((p) => (p.type === 'tool-call' && p.toolName === 'Grep' ? { ...p, input: { pattern: 'changed' } } : p)) };
          }
          return m;
        });
      }
      messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
      const result = await generateText({ model, instructions: SYSTEM, messages, tools: agentTools(), stopWhen: stepCountIs(10) });
      messages.push(...result.responseMessages);
    }
    return { sent: bodies(fake.server), seen, plans, ok: fake.server.requests.every((r) => r.status === 200) };
  }

  it('sends the same requests as a full mapping per call, history edits included, and recognises each step’s prompt as the last one plus new messages', async () => {
    const kept = await loop(false);
    const full = await loop(true);
    expect(kept.ok).toBe(true);
    expect(kept.sent).toHaveLength(9);
    expect(kept.sent).toEqual(full.sent);
    expect(kept.plans.map((p) => p.resync?.reason ?? null)).toEqual(full.plans.map((p) => p.resync?.reason ?? null));
    expect(kept.plans[6]?.resync).toBeDefined(); // the edited history
    // The AI SDK's prompts: each one the previous plus what the loop appended, except where the history was edited.
    let previous = mapPrompt(kept.seen[0]!, 'generate').mapped;
    for (const [i, call] of kept.seen.entries()) {
      if (i === 0) continue;
      const next = mapPrompt(call, 'generate', previous);
      if (i !== 6) expect(next.reuse.same, `call ${i}`).toBe(previous.prompt.length);
      else expect(next.reuse.same).toBeLessThan(previous.prompt.length);
      expect(next.mapped.result).toEqual(toAnthropicPrompt(call, 'generate'));
      previous = next.mapped;
    }
  });
});

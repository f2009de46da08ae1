/**
 * The AI SDK door under the property suite's random sessions: each request of
 * a session is an AI SDK model call (the standardized prompt the `ai` package
 * builds: system messages, user text, assistant reasoning / text / tool-call
 * parts, tool messages with tool-result parts, fresh objects every call) sent
 * through `wrapLanguageModel({ model, middleware: cachepointMiddleware() })`
 * with the real `@ai-sdk/anthropic` provider to the local fake Messages API.
 *
 * Checks, every call: it goes through (the fake API's validator accepts what
 * the provider put on the wire); the middleware prepared it (no
 * `unmappable_prompt` / `prepare_failed`: a call sent unchanged is a door
 * silently closed); the wire's system, tools and messages are exactly the
 * request the engine rendered (markers included); ≤ 4 markers on the wire; an
 * append-only loop never resyncs.
 */
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { createAnthropic } from '@ai-sdk/anthropic';
import { wrapLanguageModel } from 'ai';
import type fc from 'fast-check';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointPlanEvent, type CachepointWarning } from '../../src/integrations/ai-sdk/middleware.js';
import type { CallOptions, PromptMessage } from '../../src/integrations/ai-sdk/types.js';
import { customProfile } from '../../src/models/profiles.js';
import type { FakeMessagesServer } from '../../src/testing/fake-server.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';
import { sessionScript, type SessionScript } from './timelines.js';

// The AI SDK's console copy of call warnings: the checks read them from the results.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** AI SDK sessions: the shapes of timelines.ts, at sizes one fake-API round trip per request can afford. */
export const aiSdkScript: fc.Arbitrary<SessionScript> = sessionScript;

export interface AiSdkStats {
  calls: number;
  wireChecks: number;
  markers: number;
}

export function emptyAiSdkStats(): AiSdkStats {
  return { calls: 0, wireChecks: 0, markers: 0 };
}

const MODEL = 'claude-sonnet-4-5';
const charTokens = new BlockTokenCache(charCounter());

const TOOLS: NonNullable<CallOptions['tools']> = [
  { type: 'function', name: 'Read', description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  { type: 'function', name: 'Grep', description: 'Searches files.', inputSchema: { type: 'object' } },
];

/**
 * A tool result left with no content part (all its parts were blank) is sent by
 * the engine without `content`; the AI SDK has no way to say "no content" and
 * the provider sends `content: ""`. The API takes both as the same empty
 * result, and each request sends it the same way (the prefix stays stable), so
 * the comparison treats them as equal; everything else must match byte for byte.
 */
function noEmptyResult(this: unknown, key: string, value: unknown): unknown {
  if (key === 'content' && value === '' && (this as { type?: unknown }).type === 'tool_result') return undefined;
  return value;
}

function markers(x: unknown): number {
  return JSON.stringify(x).split('"cache_control"').length - 1;
}

/**
 * Plays a script as AI SDK calls through the middleware and the real provider
 * against `server` (its script is fed one text response per call).
 */
export async function runAiSdkScript(script: SessionScript, server: FakeMessagesServer, stats: AiSdkStats = emptyAiSdkStats()): Promise<void> {
  const profile = customProfile(`ai-sdk-${script.window}-${script.keepsThinking}`, {
    contextWindow: Math.min(script.window, 200_000),
    keepsThinking: script.keepsThinking,
    prices: { input: 3 },
  });
  const { tokenFactor: _f, ...options } = script.options;
  const store = new MemoryConversationStore();
  const warnings: CachepointWarning[] = [];
  const seen: { plan?: CachepointPlanEvent | undefined } = {};
  let now = 1_700_000_000_000;
  let tail: { type: 'text'; text: string }[] | undefined;
  const middleware = cachepointMiddleware({
    conversationId: 'ai-sdk',
    store,
    render: { ...options, profile, ...(script.tiktoken ? {} : { tokens: charTokens }) },
    now: () => now,
    tail: () => tail,
    onWarning: (w) => warnings.push(w),
    onPlan: (e) => {
      seen.plan = e;
    },
  });
  const provider = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test-key' });
  const model = wrapLanguageModel({ model: provider(MODEL), middleware });
  const cap = script.window < 60_000 ? 2000 : Number.POSITIVE_INFINITY;
  const capped = (t: string) => (t.length > cap ? t.slice(0, cap) : t);
  const cappedInput = (i: Record<string, unknown>) => (JSON.stringify(i).length > cap ? { path: capped(String(i.path)) } : i);
  const system: PromptMessage[] = script.instructions.map((i) => ({ role: 'system', content: script.window < 60_000 ? i.slice(0, 2000) : i }));
  const prompt: PromptMessage[] = [];
  let seq = 0;
  const before = server.requests.length;

  const call = async (label: string) => {
    seen.plan = undefined;
    warnings.length = 0;
    server.script([{ type: 'text', text: 'ok' }]);
    const params: CallOptions = { prompt: structuredClone([...system, ...prompt]), tools: structuredClone(TOOLS), maxOutputTokens: 1024 };
    try {
      await model.doGenerate(params);
    } catch (e) {
      throw new Error(`${label}: the call failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
    }
    stats.calls++;
    const closed = warnings.filter((w) => w.code === 'unmappable_prompt' || w.code === 'prepare_failed' || w.code === 'unsupported_provider');
    if (closed.length > 0) throw new Error(`${label}: the call went through unchanged: ${closed.map((w) => w.message).join('; ')}`);
    const plan = seen.plan as CachepointPlanEvent | undefined;
    if (!plan) throw new Error(`${label}: no plan (the middleware did not prepare the call)`);
    const resync = plan.plan.resync;
    if (resync && !resync.reason.endsWith('_changed')) throw new Error(`${label}: an append-only loop resynced: ${resync.reason}: ${resync.detail}`);
    const body = server.requests.at(-1)!.body as MessageCreateParamsBase;
    const n = markers({ tools: body.tools, system: body.system, messages: body.messages });
    if (n > 4) throw new Error(`${label}: ${n} cache markers on the wire`);
    stats.markers += n;
    const wire = JSON.stringify({ tools: body.tools, system: body.system, messages: body.messages }, noEmptyResult);
    const want = JSON.stringify({ tools: plan.request.tools, system: plan.request.system, messages: plan.request.messages }, noEmptyResult);
    if (wire !== want) {
      let i = 0;
      while (wire[i] === want[i]) i++;
      throw new Error(
        `${label}: the provider sent other bytes than the engine rendered, from byte ${i}:\n wire: …${wire.slice(i - 300, i + 300)}\n want: …${want.slice(i - 300, i + 300)}`,
      );
    }
    stats.wireChecks++;
  };

  for (const [ti, t] of script.turns.entries()) {
    now += t.gap * 1000;
    prompt.push({ role: 'user', content: t.user.map((x) => ({ type: 'text', text: x })) });
    const last = ti === script.turns.length - 1;
    for (const [ri, rd] of t.rounds.entries()) {
      await call(`turn ${ti + 1} round ${ri + 1}`);
      const ids = rd.calls.map(() => `toolu_${String(++seq).padStart(6, '0')}`);
      prompt.push({
        role: 'assistant',
        content: [
          ...(rd.thinking ? [{ type: 'reasoning' as const, text: `thinking ${seq}`, providerOptions: { anthropic: { signature: `sig-${seq}` } } }] : []),
          ...(rd.text !== null ? [{ type: 'text' as const, text: rd.text }] : []),
          ...rd.calls.map((c, k) => ({ type: 'tool-call' as const, toolCallId: ids[k]!, toolName: k % 2 ? 'Grep' : 'Read', input: cappedInput(c.input) })),
        ],
      });
      prompt.push({
        role: 'tool',
        content: rd.calls.map((c, k) => ({
          type: 'tool-result' as const,
          toolCallId: ids[k]!,
          toolName: k % 2 ? 'Grep' : 'Read',
          output:
            typeof c.result === 'string'
              ? { type: c.isError ? ('error-text' as const) : ('text' as const), value: capped(c.result) }
              : { type: 'content' as const, value: c.result.map((p) => ({ type: 'text' as const, text: capped(p) })) },
        })),
      });
      if (rd.injected.length > 0) prompt.push({ role: 'user', content: rd.injected.map((x) => ({ type: 'text', text: x })) });
      now += 3000;
      if (rd.tail) tail = rd.tail.map((x) => ({ type: 'text', text: x }));
      now += rd.gap * 1000;
    }
    await call(`turn ${ti + 1} final`);
    if (!(last && script.open)) prompt.push({ role: 'assistant', content: t.final.map((x) => ({ type: 'text', text: x })) });
  }
  if (server.requests.length - before !== stats.calls && stats.calls === 0) throw new Error('no calls reached the server');
}

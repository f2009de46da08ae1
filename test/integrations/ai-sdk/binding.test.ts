/**
 * Preserved thinking through the AI SDK door (models that bind thinking): the real `ai` tool loop and
 * `@ai-sdk/anthropic` provider, `cachepointMiddleware`, against the fake server that signs every thinking block
 * with its prefix and refuses one sent back with a changed prefix. `drop_block` is the provider's own option
 * (`providerOptions.anthropic.thinking.blockBinding`, @ai-sdk/anthropic 4.0.105): it sends
 * `thinking.block_binding` and adds the beta header itself, and the middleware passes it through.
 */
import { generateText, stepCountIs, wrapLanguageModel, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryConversationStore } from '../../../src/conversation/memory-store.js';
import { cachepointMiddleware, type CachepointWarning } from '../../../src/integrations/ai-sdk/index.js';
import type { FakeMessagesServer } from '../../../src/testing/fake-server.js';
import { THINKING_BINDING_BETA } from '../../../src/testing/fake-server-binding.js';
import type { ScriptEntry } from '../../../src/testing/fake-server-script.js';
import { thinkingOf } from '../../helpers/binding.js';
import { agentTools, fakeAnthropic, SYSTEM } from './harness.js';

const MODEL = 'claude-sonnet-5-5';

const servers: FakeMessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Each turn: `rounds` responses of thinking and one Read call, then thinking and the answer. */
function script(turns: number, rounds: number): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  for (let t = 1; t <= turns; t++) {
    for (let r = 1; r <= rounds; r++) {
      out.push([
        { type: 'thinking', thinking: `Turn ${t}, step ${r}.`, signature: `sig-${t}-${r}` },
        { type: 'tool_use', id: `toolu_${t}_${r}`, name: 'Read', input: { path: `src/mod-${r}.ts` } },
      ]);
    }
    out.push([
      { type: 'thinking', thinking: `Turn ${t}: done.`, signature: `sig-${t}-end` },
      { type: 'text', text: `Turn ${t} done.` },
    ]);
  }
  return out;
}

async function run(dropBlock: boolean, system: (turn: number) => string = () => SYSTEM) {
  const fake = await fakeAnthropic({ script: script(2, 2) });
  servers.push(fake.server);
  const warnings: CachepointWarning[] = [];
  const model = wrapLanguageModel({
    model: fake.provider(MODEL),
    middleware: cachepointMiddleware({ store: new MemoryConversationStore(), tail: 'live view', onWarning: (w) => warnings.push(w) }),
  });
  const thinking = dropBlock ? { type: 'adaptive', blockBinding: { prefixMismatchBehavior: 'drop_block' } } : { type: 'adaptive' };
  const messages: ModelMessage[] = [];
  for (let t = 1; t <= 2; t++) {
    messages.push({ role: 'user', content: `Task ${t}: tidy up the modules.` });
    const result = await generateText({
      model,
      instructions: system(t),
      messages,
      tools: agentTools(),
      stopWhen: stepCountIs(10),
      providerOptions: { cachepoint: { conversationId: 'bind-ai-sdk' }, anthropic: { thinking } as never },
    });
    messages.push(...result.responseMessages);
  }
  const requests = fake.server.requests.filter((r) => r.path === '/v1/messages');
  return { requests, warnings };
}

describe('preserved thinking through the AI SDK middleware', () => {
  it('drop_block: the param and the beta header reach the API on every request; never refused, no thinking left out', async () => {
    const { requests, warnings } = await run(true);
    expect(warnings).toEqual([]);
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const r of requests) {
      expect(String(r.headers['anthropic-beta']).split(',')).toContain(THINKING_BINDING_BETA);
      expect((r.body as { thinking?: unknown }).thinking).toMatchObject({ block_binding: { prefix_mismatch_behavior: 'drop_block' } });
      // Nothing had to be dropped: the history the middleware sends keeps every prefix.
      expect((r.response as { input_transformations?: unknown[] }).input_transformations ?? []).toEqual([]);
    }
    const produced = ['sig-1-1', 'sig-1-2', 'sig-1-end', 'sig-2-1', 'sig-2-2'];
    requests.forEach((r, i) => expect(thinkingOf(r.body)).toEqual(produced.slice(0, i)));
  });

  it('without the opt-in: no header, no param, still never refused (a changed system prompt leaves out the thinking before it)', async () => {
    const { requests } = await run(false, (t) => (t === 1 ? SYSTEM : `${SYSTEM} Be brief.`));
    expect(requests.map((r) => r.error?.message ?? r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const r of requests) {
      expect(String(r.headers['anthropic-beta'] ?? '')).not.toContain(THINKING_BINDING_BETA);
      expect((r.body as { thinking?: { block_binding?: unknown } }).thinking?.block_binding).toBeUndefined();
    }
    // Turn 2's first request: the system prompt changed, so turn 1's thinking is left out; turn 2's is kept after.
    expect(thinkingOf(requests[3]!.body)).toEqual([]);
    expect(thinkingOf(requests[5]!.body)).toEqual(['sig-2-1', 'sig-2-2']);
  });
});

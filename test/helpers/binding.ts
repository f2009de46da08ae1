/** Shared by the preserved-thinking tests (test/render/bind*.test.ts). */
import type Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import type { ConversationStore } from '../../src/conversation/types.js';
import { bindResponse } from '../../src/testing/fake-server-binding.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { INSTRUCTIONS, TOOLS, text } from './build.js';

/**
 * Every response: a thinking block (redacted every `redactEvery`-th, 0: never), then one Read call; the last
 * response of a turn thinks and answers.
 */
export function bindingScript(turns: number, rounds: number, redactEvery = 5): ScriptEntry[] {
  const out: ScriptEntry[] = [];
  let n = 0;
  for (let t = 1; t <= turns; t++) {
    for (let r = 1; r <= rounds; r++) {
      n++;
      const thinking =
        redactEvery > 0 && n % redactEvery === 0
          ? { type: 'redacted_thinking' as const, data: `redacted-${t}-${r}` }
          : { type: 'thinking' as const, thinking: `Turn ${t}, step ${r}: read file ${r}.`, signature: `sig-${t}-${r}` };
      out.push([thinking, { type: 'tool_use', id: `toolu_${t}_${r}`, name: 'Read', input: { path: `src/mod-${t}-${r}.ts` } }]);
    }
    out.push([
      { type: 'thinking', thinking: `Turn ${t}: done.`, signature: `sig-${t}-end` },
      { type: 'text', text: `Turn ${t} done.` },
    ]);
  }
  return out;
}

/** The thinking blocks a request carried, by their signature (data) without the fake server's binding digest. */
export function thinkingOf(body: unknown): string[] {
  const out: string[] = [];
  for (const m of (body as Anthropic.MessageCreateParams).messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'thinking') out.push(b.signature.split('~')[0]!);
      else if (b.type === 'redacted_thinking') out.push(b.data.split('~')[0]!);
    }
  }
  return out;
}

/** The model's answer `m<n>` holding `content`, as the fake server signs it for `params` (each thinking block bound to its prefix). */
export function signedAnswer(params: Anthropic.MessageCreateParams, n: number, content: readonly unknown[]): Anthropic.ContentBlockParam[] {
  const message = { id: `m${n}`, type: 'message', role: 'assistant', model: params.model, content };
  return bindResponse(params as never, message as never).content as Anthropic.ContentBlockParam[];
}

/** A tool-use response and the tool result the loop sends for it (600 characters of text), as the next two messages. */
export function answerWithResult(m: Anthropic.Message): Anthropic.MessageParam[] {
  const use = m.content.find((b) => b.type === 'tool_use')!;
  return [
    { role: 'assistant', content: m.content as Anthropic.ContentBlockParam[] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: text(use.id, 600) }] },
  ];
}

/**
 * One request of a plain loop through `prepare` and the real client (the fake server's binding check): request n at
 * n seconds, with a live view as the tail when `tail`, at most 4 markers; a refusal names the request and the log
 * (resync, thinking left out, reads) of the ones before.
 */
export function bindingSender(client: Anthropic, store: ConversationStore, model: string, conversationId: string, tail: boolean) {
  let n = 0;
  const log: string[] = [];
  const send = async (messages: Anthropic.MessageParam[]) => {
    n++;
    const { params, headers, plan } = await prepare(
      { model, max_tokens: 1024, system: INSTRUCTIONS.map((i) => ({ type: 'text' as const, text: i })), tools: TOOLS, messages },
      { conversationId, store, now: n * 1000, ...(tail ? { tail: `live view ${n}: ${'listing '.repeat(100)}` } : {}) },
    );
    const message = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, { headers }).catch((e: Error) => {
      throw new Error(`request ${n}: ${e.message}\n${log.join('\n')}`);
    });
    log.push(`${n} resync=${plan.resync?.reason ?? ''} lost=${plan.thinkingLost?.blocks ?? 0} read=${message.usage.cache_read_input_tokens}`);
    expect(JSON.stringify(params).split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
    return { message, plan };
  };
  return { send, log };
}

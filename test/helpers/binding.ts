/** Shared by the preserved-thinking tests (test/render/bind*.test.ts). */
import type Anthropic from '@anthropic-ai/sdk';
import { bindResponse } from '../../src/testing/fake-server-binding.js';
import type { ScriptEntry } from '../../src/testing/fake-server-script.js';
import { text } from './build.js';

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

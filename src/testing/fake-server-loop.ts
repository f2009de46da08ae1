/**
 * The thinking of an open tool loop in the fake server: the server remembers the thinking blocks of every response
 * it answered with a tool_use, and when a request sends that response back with its tool results (the request's
 * final assistant message, src/internal/loop-thinking.ts), checks the thinking blocks it carries:
 *
 * - each one must be a block the response held, byte for byte (its text and signature, or its data), in the
 *   response's order: otherwise the API's 400 "… blocks in the latest assistant message cannot be modified …";
 * - leaving some out from the end, or all of them, is accepted by default (adaptive thinking: "Assistant turns don't
 *   need to start with a thinking block"; manual thinking's own rule is checked by `validateRequest`); with
 *   `loopThinking: 'strict'` it is refused too, as the thinking-tool-workflows page states the rule ("when you
 *   return a tool result, the thinking blocks from the assistant message must come back with it").
 *
 * Each request records what it did with them (`RecordedRequest.loopThinking`), so a test can assert `kept`.
 */
import type { Message, MessageCreateParamsBase } from '../providers/anthropic-types.js';
import { isThinkingParam, modifiedLoopThinking, openLoop } from '../internal/loop-thinking.js';
import { canonical } from '../sim/binding.js';
import { HttpError } from './fake-server-http.js';

/**
 * What a request did with the thinking of the response its tool results answer: `kept` (all of it, as produced),
 * `partial` (the first ones, as produced), `omitted` (none; the response had some), `none` (the response had none).
 */
export type LoopThinking = 'kept' | 'partial' | 'omitted' | 'none';

/** How the fake server treats thinking left out of an open tool loop (see the file's comment). */
export type LoopThinkingRule = 'lenient' | 'strict';

/** The canonical form of a thinking block (what must come back unchanged). */
function thinkingKey(b: unknown): string {
  const o = b as { type: string; thinking?: unknown; signature?: unknown; data?: unknown };
  return o.type === 'thinking' ? canonical({ type: o.type, thinking: o.thinking, signature: o.signature }) : canonical({ type: o.type, data: o.data });
}

/**
 * The thinking blocks of the responses the server answered, by each of their tool_use ids (a list: tests may script
 * the same id in several conversations; a request is checked against the one it can be).
 */
export class LoopThinkingLedger {
  readonly #byToolUse = new Map<string, (readonly string[])[]>();

  /** Remembers a response's thinking (as sent: after preserved thinking signed it) under its tool_use ids. */
  remember(message: Message): void {
    const thinking = message.content.filter(isThinkingParam).map(thinkingKey);
    for (const b of message.content) {
      if (b.type !== 'tool_use') continue;
      const known = this.#byToolUse.get(b.id);
      if (known) known.push(thinking);
      else this.#byToolUse.set(b.id, [thinking]);
    }
  }

  /**
   * Checks the thinking of the request's open tool loop against the response it sends back. Throws the API's 400 for
   * a block sent altered or out of order (and, `strict`, for thinking left out); undefined when the request has no
   * open loop this server answered.
   */
  check(params: MessageCreateParamsBase, rule: LoopThinkingRule): LoopThinking | undefined {
    const loop = openLoop(params.messages);
    if (!loop) return undefined;
    const use = loop.blocks.find((b) => (b as { type?: unknown })?.type === 'tool_use') as { id?: unknown } | undefined;
    const candidates = typeof use?.id === 'string' ? this.#byToolUse.get(use.id) : undefined;
    if (!candidates) return undefined;
    // The thinking the request sends back, with each block's path as the API names it (runs are not renumbered).
    const sent: { key: string; path: string }[] = [];
    for (let i = loop.index; i < params.messages.length && params.messages[i]!.role === 'assistant'; i++) {
      const content = params.messages[i]!.content;
      if (!Array.isArray(content)) continue;
      content.forEach((b, j) => {
        if (isThinkingParam(b)) sent.push({ key: thinkingKey(b), path: `messages.${i}.content.${j}` });
      });
    }
    let best: LoopThinking | undefined;
    let firstBad = 0;
    for (const produced of candidates) {
      let m = 0;
      while (m < sent.length && m < produced.length && sent[m]!.key === produced[m]) m++;
      if (m < sent.length) {
        firstBad = Math.max(firstBad, m);
        continue;
      }
      const outcome: LoopThinking = produced.length === 0 ? 'none' : m === produced.length ? 'kept' : m === 0 ? 'omitted' : 'partial';
      if (best === undefined || RANK[outcome] > RANK[best]) best = outcome;
    }
    if (best === undefined) throw new HttpError(400, 'invalid_request_error', modifiedLoopThinking(sent[firstBad]!.path));
    if (rule === 'strict' && (best === 'omitted' || best === 'partial')) {
      throw new HttpError(
        400,
        'invalid_request_error',
        `messages.${loop.index}: the thinking blocks of the assistant message must come back with its tool results, complete and unmodified (fake server, loopThinking 'strict': thinking ${best})`,
      );
    }
    return best;
  }
}

const RANK: Readonly<Record<LoopThinking, number>> = { omitted: 0, partial: 1, none: 2, kept: 3 };

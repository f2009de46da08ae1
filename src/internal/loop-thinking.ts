/**
 * Thinking in an open tool loop: the API's rules on the assistant message whose tool_use the request answers (the
 * request's last message is a user message holding tool results; the assistant message right before it is the
 * "final assistant message", same-role runs merged as the API merges them).
 *
 * Sources (read via `search`, 2026-12-02):
 * - platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows: "Pass thinking blocks back complete and
 *   unmodified: when you return a tool result, the thinking blocks from the assistant message must come back with
 *   it"; "Echo the assistant message exactly as received: rebuilding the message or filtering out redacted_thinking
 *   blocks triggers a 400 error"; the samples use adaptive thinking and "the round-trip rules are identical" with
 *   `thinking: {type: "enabled"}`.
 * - Manual mode (`thinking.type: "enabled"`) enforces that the final assistant message starts with a thinking block;
 *   adaptive thinking does not ("Assistant turns don't need to start with a thinking block": thinking pages,
 *   "Turn validation", read 2026-12-01, docs/models.md). The API's answer, quoted in n8n-io/n8n#22550 (2025-12-01) and
 *   epam/ai-dial-adapter-bedrock#290 (2025-06-27): {@link manualLoopThinkingIssue}'s message.
 * - A thinking block of that message sent altered: "messages.3.content.11: `thinking` or `redacted_thinking` blocks
 *   in the latest assistant message cannot be modified. These blocks must remain as they were in the original
 *   response." (anthropics/claude-code#63203, #19539, 2026; vybestack/llxprt-code#1653 on claude-opus-4-6).
 */

import { InvalidParamsError } from '../errors.js';

type Json = Record<string, unknown>;

/** A message as a request carries it (role and content; nothing else is read). */
export interface LoopMessage {
  readonly role?: unknown;
  readonly content?: unknown;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a content block is a thinking or redacted_thinking block. */
export function isThinkingParam(b: unknown): boolean {
  const type = isObject(b) ? b.type : undefined;
  return type === 'thinking' || type === 'redacted_thinking';
}

/** The content blocks of a message (a string content is one text block). */
function blocksOf(content: unknown): readonly unknown[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  return Array.isArray(content) ? content : [];
}

/**
 * The open tool loop of a request: the index of the first message of the final assistant run (the message the API
 * names in its error) and that run's blocks, when the request ends with a user run holding a tool_result; else
 * undefined (a new user turn, a prefill, no assistant message).
 *
 * @example
 * openLoop([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [toolUse] }, { role: 'user', content: [result] }]);
 * // { index: 1, blocks: [toolUse] }
 */
export function openLoop(messages: readonly LoopMessage[]): { readonly index: number; readonly blocks: readonly unknown[] } | undefined {
  let i = messages.length - 1;
  let results = false;
  while (i >= 0 && messages[i]?.role === 'user') {
    if (!results) results = blocksOf(messages[i]!.content).some((b) => isObject(b) && b.type === 'tool_result');
    i--;
  }
  if (!results || i < 0 || i === messages.length - 1 || messages[i]?.role !== 'assistant') return undefined;
  let first = i;
  while (first > 0 && messages[first - 1]?.role === 'assistant') first--;
  const blocks: unknown[] = [];
  for (let k = first; k <= i; k++) blocks.push(...blocksOf(messages[k]!.content));
  return { index: first, blocks };
}

/**
 * The final assistant turn of a request with an open tool loop: the index of its first assistant message and that
 * message's blocks (same-role runs merged), or undefined without an open loop. A tool loop is one assistant turn ("If
 * thinking is enabled, the final assistant turn should start with a thinking block … tool use loops are part of the
 * assistant turn": extended-thinking page, "Toggling thinking modes in conversations", read via `search` 2026-12-02),
 * so the turn reaches back over every assistant message answered by a user message holding a tool_result. Without
 * interleaved thinking Claude thinks only at the turn's start: the later responses carry none, and that is valid.
 *
 * @example
 * finalTurn([user, { role: 'assistant', content: [thinking, use1] }, result1, { role: 'assistant', content: [use2] }, result2]);
 * // { index: 1, blocks: [thinking, use1] }
 */
export function finalTurn(messages: readonly LoopMessage[]): { readonly index: number; readonly blocks: readonly unknown[] } | undefined {
  const loop = openLoop(messages);
  if (!loop) return undefined;
  let first = loop.index;
  for (let i = loop.index - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') first = i;
    else if (!(m.role === 'user' && blocksOf(m.content).some((b) => isObject(b) && b.type === 'tool_result'))) break;
  }
  if (first === loop.index) return loop;
  const blocks: unknown[] = [];
  for (let k = first; k < messages.length && messages[k]?.role === 'assistant'; k++) blocks.push(...blocksOf(messages[k]!.content));
  return { index: first, blocks };
}

/**
 * Whether a model refuses manual extended thinking (`thinking.type: "enabled"`): "Claude 4.7 and later models do not
 * support it and reject requests that use it" (platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting,
 * read 2026-12-01, docs/models.md); Claude Mythos Preview is adaptive only (Bedrock's adaptive-thinking page, read
 * 2026-12-02). Older naming (`claude-3-7-sonnet`) and custom ids: not refused.
 */
export function manualThinkingRefused(modelId: string): boolean {
  if (/^claude-mythos-preview/.test(modelId)) return true;
  const m = /^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?!\d)/.exec(modelId);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 7);
}

/** The API's 400 for manual thinking on a model that refuses it (freecodexyz/free-code#32, 2026-04-17, Opus 4.7). */
export const MANUAL_THINKING_REFUSED =
  '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';

/** The request's `thinking.type` when it is manual extended thinking (`enabled`). */
export function isManualThinking(thinking: unknown): boolean {
  return isObject(thinking) && thinking.type === 'enabled';
}

/**
 * The API's 400 for a request with manual extended thinking (`thinking.type: "enabled"`) whose final assistant turn
 * (the tool loop the request's tool results continue: {@link finalTurn}) does not start with a thinking or
 * redacted_thinking block, or undefined when the request is fine. `index` is the message the API names
 * (`messages.{index}.content.0`: the turn's first assistant message).
 *
 * @example
 * manualLoopThinkingIssue({ type: 'enabled', budget_tokens: 2048 }, messages)?.message;
 * // 'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When …'
 */
export function manualLoopThinkingIssue(thinking: unknown, messages: readonly LoopMessage[]): { readonly index: number; readonly message: string } | undefined {
  if (!isManualThinking(thinking)) return undefined;
  const loop = finalTurn(messages);
  if (!loop) return undefined;
  const first = loop.blocks[0];
  if (isThinkingParam(first)) return undefined;
  const found = isObject(first) && typeof first.type === 'string' ? first.type : 'nothing';
  return {
    index: loop.index,
    message:
      `messages.${loop.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ` +
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of ' +
      '`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, ' +
      'disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
  };
}

/** The API's 400 for a thinking block of the final assistant message sent altered (`path`: `messages.N.content.M`). */
export function modifiedLoopThinking(path: string): string {
  return `${path}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
}

/**
 * Throws an {@link InvalidParamsError} (`thinking`) for manual extended thinking on a model that refuses it
 * ({@link manualThinkingRefused}); `model` is the canonical id.
 */
export function refuseManualThinking(thinking: unknown, model: string): void {
  if (!isManualThinking(thinking) || !manualThinkingRefused(model)) return;
  throw new InvalidParamsError(
    'thinking',
    `thinking.type "enabled" (manual extended thinking) is refused by ${model} (Claude 4.7 and later models take only adaptive thinking): send { type: 'adaptive' } and steer the depth with output_config.effort`,
  );
}

/** Whether a content block list holds a thinking or redacted_thinking block anywhere. */
const holdsThinking = (blocks: readonly unknown[]): boolean => blocks.some(isThinkingParam);

/**
 * What a request with manual extended thinking (`thinking.type: "enabled"`) sends when its final assistant turn does
 * not start with a thinking block ({@link manualLoopThinkingIssue}): undefined when the request is fine as it is; a
 * sentence saying why when thinking must be disabled for this request instead, which is the API's own remedy ("To
 * avoid this requirement, disable `thinking`", its 400) and what the extended-thinking page says it does by itself
 * ("Graceful thinking degradation": thinking "silently disabled for that request"). Valid only while the turn holds
 * no thinking block at all ("If thinking is disabled, the final assistant turn shouldn't contain any thinking
 * blocks"): otherwise nothing can be sent and it throws an `InvalidParamsError` naming the message. Typical cause in
 * cachepoint's own output: a compaction that summarized the first rounds of a long tool loop whose thinking came
 * only with its first response (no interleaved thinking).
 *
 * @example
 * thinkingToDisable({ type: 'enabled', budget_tokens: 2048 }, messagesAfterACompaction);
 * // 'the final assistant turn (messages[4]) does not start with a thinking block …'
 */
export function thinkingToDisable(thinking: unknown, messages: readonly LoopMessage[], offset = 0, rendered = false): string | undefined {
  const issue = manualLoopThinkingIssue(thinking, messages);
  if (!issue) return undefined;
  for (let i = issue.index; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant' && holdsThinking(blocksOf(m.content))) throw loopWithoutThinking(issue.index + offset, rendered);
  }
  const whose = rendered ? 'in the rendered request (its first rounds were summarized or left out)' : "in the caller's messages";
  return (
    `the final assistant turn (messages[${issue.index + offset}]) does not start with a thinking block ${whose} and holds none: ` +
    'thinking is disabled for this request, as the API advises ("To avoid this requirement, disable `thinking`"); the next user turn thinks again'
  );
}

/**
 * The error for a request with manual extended thinking whose final assistant turn holds thinking but does not start
 * with it ({@link thinkingToDisable}): nothing can be sent. Names the message (`messages[N]`, `index` counted as the
 * caller's, e.g. after leading system-role ones). `rendered`: the messages are cachepoint's output, not the caller's
 * (the caller's were fine): a defect, said so.
 */
function loopWithoutThinking(index: number, rendered: boolean): InvalidParamsError {
  const why = rendered
    ? "the rendered request's final assistant turn (the tool loop its tool results continue) does not start with its thinking block, which the caller's messages had (a cachepoint defect; nothing was sent)"
    : 'the assistant turn these tool results continue (its first assistant message) does not start with a thinking block';
  return new InvalidParamsError(
    `messages[${index}]`,
    `${why}: with thinking.type "enabled" (manual extended thinking) the API refuses the request ("a final assistant message must start with a thinking block"). Send the response's content back as the API returned it, thinking and redacted_thinking blocks first and unchanged (signature included), or use thinking.type "adaptive" where the model has it`,
  );
}

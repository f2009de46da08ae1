/**
 * The warm prefix of a request: its bytes up to and including the last block
 * that carries a cache marker. After the request was sent, the provider holds
 * a cache entry for exactly that prefix, so a follow-up request that starts
 * with the same bytes reads it at 0.1× instead of paying for it again.
 */
import type { ContentBlockParam, MessageCreateParamsNonStreaming, MessageParam } from '../providers/anthropic-types.js';

const marked = (b: unknown): boolean => b !== null && typeof b === 'object' && 'cache_control' in b && (b as { cache_control?: unknown }).cache_control != null;

/**
 * Cuts create params after the last marked message block, keeping the markers,
 * `tools`, `system` and every other field. Returns undefined when no message
 * block is marked: then no history is cached, and there is nothing to reuse.
 *
 * @example
 * const prefix = cutToWarmPrefix(lastParams);
 * await summarizer.summarize({ fromTurn: 1, toTurn: 6, turns, maxTokens: 2000, ...(prefix ? { warmPrefix: prefix } : {}) });
 */
export function cutToWarmPrefix(params: MessageCreateParamsNonStreaming): MessageCreateParamsNonStreaming | undefined {
  for (let m = params.messages.length - 1; m >= 0; m--) {
    const message = params.messages[m]!;
    if (typeof message.content === 'string') continue;
    const blocks = message.content as readonly ContentBlockParam[];
    for (let b = blocks.length - 1; b >= 0; b--) {
      if (!marked(blocks[b])) continue;
      const last = (b === blocks.length - 1 ? message : { ...message, content: blocks.slice(0, b + 1) }) as MessageParam;
      return { ...params, messages: [...params.messages.slice(0, m), last] };
    }
  }
  return undefined;
}

/**
 * The `recall` tool as an AI SDK tool: put it in your `tools` and the agent
 * can read back, byte-identical, whatever the engine pruned, hid or
 * summarized out of the conversation. It answers from the conversation's
 * state in the same conversation store the middleware uses.
 */
import { jsonSchema, type Tool } from 'ai';
import { defaultConversationStore } from '../../conversation/prepare.js';
import type { ConversationStore } from '../../conversation/types.js';
import { handleRecall, recallTool, type RecallInput } from '../../recall/recall-tool.js';

/** Options of {@link createRecallTool}. */
export interface RecallToolOptions {
  /** The conversation to read back from: the same id the middleware uses. */
  readonly conversationId: string;
  /** The middleware's store (default: the process-wide in-memory store of `prepare`). */
  readonly store?: ConversationStore;
}

/**
 * An AI SDK tool named `recall`, answering from the conversation's stored state.
 * Register it from the first request on (tools sit at the front of the cached
 * prefix: adding one later re-writes the whole cache once).
 *
 * @example
 * const tools = { ...myTools, recall: createRecallTool({ conversationId: 'chat-42', store }) };
 */
export function createRecallTool(options: RecallToolOptions): Tool<RecallInput, string> {
  return {
    description: recallTool.description ?? 'Read back content that was removed from this conversation.',
    inputSchema: jsonSchema<RecallInput>(recallTool.input_schema as Parameters<typeof jsonSchema>[0]),
    execute: async (input: RecallInput) => {
      const store = options.store ?? defaultConversationStore();
      const record = await store.load(options.conversationId);
      if (!record) throw new Error(`recall: conversation "${options.conversationId}" has nothing stored yet`);
      const { content, is_error } = handleRecall(input, { state: record.state });
      const text = typeof content === 'string' ? content : JSON.stringify(content);
      if (is_error) throw new Error(text);
      return text;
    },
  };
}

/**
 * The `recall` tool as an AI SDK tool: put it in your `tools` and the agent
 * can read back, byte-identical, whatever the engine pruned, hid or
 * summarized out of the conversation. It answers from the conversation's
 * state in the same conversation store the middleware uses.
 */
import { jsonSchema, type Tool } from 'ai';
import { conversationStoreProblem, defaultConversationStore } from '../../conversation/prepare.js';
import { InvalidOptionError } from '../../errors.js';
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
  checkOptions(options);
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

/**
 * Checked when the tool is made: inside execute, a bad option would only reach the model, as the tool's output
 * ("store.load is not a function"), never the user who made the slip.
 */
function checkOptions(options: RecallToolOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidOptionError('options', 'expected { conversationId, store? }', { value: options });
  }
  const id: unknown = options.conversationId;
  if (typeof id !== 'string' || id.length === 0) {
    const hint = typeof id === 'function' ? " (the function form is the middleware's: it needs the call; pass the id itself)" : '';
    throw new InvalidOptionError('conversationId', `a non-empty string is required: the id the middleware uses${hint}`, { value: id });
  }
  const storeProblem = options.store === undefined ? undefined : conversationStoreProblem(options.store);
  if (storeProblem) throw new InvalidOptionError('store', storeProblem);
}

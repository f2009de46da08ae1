/**
 * The slice of OpenAI's request shapes that `toOpenAIResponses` and
 * `toOpenAIChat` produce. Our own declarations, so the core needs no `openai`
 * package; a type test checks they are assignable to the SDK's own params
 * (test/providers/openai-types.test-d.ts). Declarations only.
 */

/** Marks the exact end of a reusable prefix (GPT-5.6 and later). */
export interface OpenAIPromptCacheBreakpoint {
  readonly mode: 'explicit';
}

/** GPT-5.6 `prompt_cache_options`. */
export interface OpenAIPromptCacheOptions {
  readonly mode?: 'implicit' | 'explicit';
  readonly ttl?: '30m';
}

// RESPONSES API

export interface ResponsesInputText {
  type: 'input_text';
  text: string;
  prompt_cache_breakpoint?: OpenAIPromptCacheBreakpoint;
}

export interface ResponsesInputImage {
  type: 'input_image';
  detail: 'auto';
  image_url: string;
  prompt_cache_breakpoint?: OpenAIPromptCacheBreakpoint;
}

export type ResponsesContentPart = ResponsesInputText | ResponsesInputImage;

export interface ResponsesMessage {
  type: 'message';
  role: 'user' | 'assistant' | 'developer';
  content: string | ResponsesContentPart[];
}

export interface ResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}

export interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: ResponsesContentPart[];
}

export type ResponsesInputItem = ResponsesMessage | ResponsesFunctionCall | ResponsesFunctionCallOutput;

export interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean;
}

/** What `toOpenAIResponses` returns: `client.responses.create(params)`. */
export interface OpenAIResponsesParams {
  model: string;
  input: ResponsesInputItem[];
  tools?: ResponsesFunctionTool[];
  prompt_cache_key?: string;
  prompt_cache_retention?: 'in_memory' | '24h';
  prompt_cache_options?: OpenAIPromptCacheOptions;
  max_output_tokens?: number;
  [extra: string]: unknown;
}

// CHAT COMPLETIONS

export interface ChatTextPart {
  type: 'text';
  text: string;
  prompt_cache_breakpoint?: OpenAIPromptCacheBreakpoint;
}

export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string };
  prompt_cache_breakpoint?: OpenAIPromptCacheBreakpoint;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'developer'; content: ChatTextPart[] }
  | { role: 'user'; content: (ChatTextPart | ChatImagePart)[] }
  | { role: 'assistant'; content: ChatTextPart[] | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: ChatTextPart[] };

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** What `toOpenAIChat` returns: `client.chat.completions.create(params)`. */
export interface OpenAIChatParams {
  model: string;
  messages: ChatMessage[];
  tools?: ChatFunctionTool[];
  prompt_cache_key?: string;
  prompt_cache_retention?: 'in_memory' | '24h';
  prompt_cache_options?: OpenAIPromptCacheOptions;
  max_completion_tokens?: number;
  [extra: string]: unknown;
}

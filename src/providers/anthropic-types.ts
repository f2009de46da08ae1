/**
 * The Anthropic Messages API shapes cachepoint reads and writes, declared here
 * so the published `.d.ts` files need no `@anthropic-ai/sdk` (an optional peer):
 * a consumer who only uses the AI SDK middleware, the OpenAI mapper or the tool
 * cache compiles with `skipLibCheck: false` without installing it.
 *
 * Written to be assignable both ways with the SDK's own types (checked by
 * test/providers/anthropic-types.test-d.ts against the installed SDK and by the
 * consumer-project test against the oldest and the latest supported version):
 * - names and unions of block kinds follow the API reference (and the SDK's
 *   `resources/messages/messages.d.ts`, version 1.14);
 * - fields cachepoint never reads (image and document sources, citations,
 *   server-tool results, `thinking`, `tool_choice`, …) are {@link Passthrough}:
 *   whatever shape an SDK version gives them is accepted and handed back;
 * - no exact-object tricks and no index signatures on the param types (an SDK
 *   interface does not assign to an index signature), so fields a newer SDK
 *   adds pass through untouched.
 *
 * The unions are the API's as of SDK 1.14: a block kind a later API adds needs
 * one line here (until then an SDK-typed array holding it is a type error, never
 * a runtime one). What cachepoint builds is typed for every supported version
 * at once: `toAnthropic` and `Session.request` return
 * {@link AnthropicRequestParams} (the block kinds SDK 0.50 already knows), and
 * `prepare` hands back the caller's own message and tool types.
 */

/**
 * A field cachepoint passes through and never reads: `any` so that every SDK
 * version's shape for it assigns to ours and ours back to the SDK's.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one deliberate any: a pass-through field, both ways assignable with every SDK version
export type Passthrough = any;

// CACHE MARKER

/** `cache_control`: the cache marker (`ttl` defaults to 5 minutes). */
export interface CacheControlEphemeral {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

// REQUEST CONTENT BLOCKS

/** A text block of a request (a message, `system`, or a tool result). */
export interface TextBlockParam {
  type: 'text';
  text: string;
  cache_control?: CacheControlEphemeral | null;
  citations?: Passthrough[] | null;
}

/** An image block of a request. */
export interface ImageBlockParam {
  type: 'image';
  /** base64, url or file source. */
  source: Passthrough;
  cache_control?: CacheControlEphemeral | null;
}

/** A document block of a request (PDF, plain text, content blocks). */
export interface DocumentBlockParam {
  type: 'document';
  /** base64 PDF, plain text, content blocks, url or file source. */
  source: Passthrough;
  cache_control?: CacheControlEphemeral | null;
  citations?: Passthrough;
  context?: string | null;
  title?: string | null;
}

/** A search result with its source, citable by the model. */
export interface SearchResultBlockParam {
  type: 'search_result';
  content: TextBlockParam[];
  source: string;
  title: string;
  cache_control?: CacheControlEphemeral | null;
  citations?: Passthrough;
}

/** A thinking block the model produced, sent back as it came (its signature checks it). */
export interface ThinkingBlockParam {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** An encrypted thinking block, sent back as it came. */
export interface RedactedThinkingBlockParam {
  type: 'redacted_thinking';
  data: string;
}

/** A tool call of an earlier response, sent back in an assistant message. */
export interface ToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: CacheControlEphemeral | null;
}

/** A reference to a deferred tool (tool search), inside a tool result. */
export interface ToolReferenceBlockParam {
  type: 'tool_reference';
  tool_name: string;
  cache_control?: CacheControlEphemeral | null;
}

/** A browser tool's page state, inside a tool result. */
export interface BrowserStateBlockParam {
  type: 'browser_state';
  tabs: Passthrough;
  cache_control?: CacheControlEphemeral | null;
}

/** What a tool result's content array may hold. */
export type ToolResultContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | SearchResultBlockParam
  | DocumentBlockParam
  | ToolReferenceBlockParam
  | BrowserStateBlockParam;

/** The result of a client tool call, in a user message. */
export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ToolResultContentBlockParam[];
  is_error?: boolean;
  cache_control?: CacheControlEphemeral | null;
}

/** A server tool call of an earlier response (web search, code execution, …), sent back as it came. */
export interface ServerToolUseBlockParam {
  type: 'server_tool_use';
  id: string;
  /** `web_search`, `web_fetch`, `code_execution`, … (the list grows with the API). */
  name: Passthrough;
  input: unknown;
  cache_control?: CacheControlEphemeral | null;
}

/** The kinds of server-tool result blocks (their `content` is passed through). */
export type ServerToolResultType =
  | 'web_search_tool_result'
  | 'web_fetch_tool_result'
  | 'code_execution_tool_result'
  | 'bash_code_execution_tool_result'
  | 'text_editor_code_execution_tool_result'
  | 'tool_search_tool_result';

/** The result of a server tool the API ran (web search, web fetch, code execution, tool search). */
export interface ServerToolResultBlockParam<T extends ServerToolResultType = ServerToolResultType> {
  type: T;
  tool_use_id: string;
  content: Passthrough;
  cache_control?: CacheControlEphemeral | null;
}

/** A file uploaded to the code-execution container. */
export interface ContainerUploadBlockParam {
  type: 'container_upload';
  file_id: string;
  cache_control?: CacheControlEphemeral | null;
}

/** The result of the web search server tool. */
export type WebSearchToolResultBlockParam = ServerToolResultBlockParam<'web_search_tool_result'>;

/** One block of a message's content, as a request sends it. */
export type ContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | DocumentBlockParam
  | SearchResultBlockParam
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ServerToolUseBlockParam
  | ServerToolResultBlockParam<'web_search_tool_result'>
  | ServerToolResultBlockParam<'web_fetch_tool_result'>
  | ServerToolResultBlockParam<'code_execution_tool_result'>
  | ServerToolResultBlockParam<'bash_code_execution_tool_result'>
  | ServerToolResultBlockParam<'text_editor_code_execution_tool_result'>
  | ServerToolResultBlockParam<'tool_search_tool_result'>
  | ContainerUploadBlockParam;

/** A user or assistant message of a request. */
export interface ConversationMessageParam {
  role: 'user' | 'assistant';
  content: string | ContentBlockParam[];
}

/** A system message inside `messages` (SDK 1.x; cachepoint folds a leading one into `system`). */
export interface SystemMessageParam {
  role: 'system';
  content: string | TextBlockParam[];
}

/** One entry of `messages`. */
export type MessageParam = ConversationMessageParam | SystemMessageParam;

// TOOLS

/** A client tool: its name, description and JSON schema. */
export interface Tool {
  name: string;
  input_schema: Tool.InputSchema;
  description?: string;
  cache_control?: CacheControlEphemeral | null;
  type?: 'custom' | null;
  strict?: boolean;
}

/** The parts of a {@link Tool}. */
export namespace Tool {
  /** The JSON schema of a tool's input (an object schema; any other keyword passes through). */
  export interface InputSchema {
    type: 'object';
    properties?: unknown | null;
    required?: string[] | null;
    [key: string]: unknown;
  }
}

/** A tool the API defines and versions (`bash_20250124`, `web_search_20250305`, `text_editor_…`, …). */
export interface ServerTool {
  type: Passthrough;
  name?: Passthrough;
  cache_control?: CacheControlEphemeral | null;
}

/** Any entry of `tools`. */
export type ToolUnion = Tool | ServerTool;

// REQUEST OPTIONS

// Typed (not Passthrough) although cachepoint never reads them: they are what a
// caller writes into `Session.request` / `toAnthropic` extras, where a typo must
// stay a compile error. They go out as Passthrough (AnthropicRequestParams), since
// older SDK versions know fewer kinds.

/** `thinking`: extended thinking on (with a budget), off, adaptive or between tools. */
export type ThinkingConfigParam =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' | null }
  | { type: 'disabled' }
  | { type: 'between_tools' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' | null };

/** `tool_choice`: how the model may use the tools. */
export type ToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** `metadata` of a request. */
export interface Metadata {
  user_id?: string | null;
}

/** `output_config`: effort and structured output. */
export interface OutputConfig {
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
  format?: { type: 'json_schema'; schema: { [key: string]: unknown } } | null;
}

/** `diagnostics`: ask the API why the cache missed, against the previous response. */
export interface DiagnosticsParam {
  previous_message_id?: string | null;
}

// REQUEST

/** `client.messages.create` params. Fields cachepoint does not read pass through. */
export interface MessageCreateParamsBase {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlockParam[];
  tools?: ToolUnion[];
  stream?: boolean;
  cache_control?: CacheControlEphemeral | null;
  container?: Passthrough;
  diagnostics?: DiagnosticsParam | null;
  metadata?: Metadata;
  output_config?: OutputConfig;
  service_tier?: 'auto' | 'standard_only';
  stop_sequences?: string[];
  temperature?: number;
  thinking?: ThinkingConfigParam;
  tool_choice?: ToolChoice;
  top_k?: number;
  top_p?: number;
  inference_geo?: string | null;
  speed?: 'standard' | 'fast' | null;
  user_profile_id?: string;
  workspace_id?: string;
}

/** `client.messages.create` params of a non-streamed request. */
export interface MessageCreateParamsNonStreaming extends MessageCreateParamsBase {
  stream?: false;
}

/** `client.messages.countTokens` params. */
export interface MessageCountTokensParams {
  model: string;
  messages: MessageParam[];
  system?: string | TextBlockParam[];
  tools?: ToolUnion[];
  tool_choice?: ToolChoice;
  thinking?: ThinkingConfigParam;
  output_config?: OutputConfig;
}

/** `client.messages.countTokens`'s answer. */
export interface MessageTokensCount {
  input_tokens: number;
}

// RESPONSE

/** A text block of a response. */
export interface TextBlock {
  type: 'text';
  text: string;
  citations?: Passthrough[] | null;
}

/** A client tool call of a response. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  /** Who called the tool (direct, or code execution): SDK 1.x. */
  caller?: Passthrough;
}

/** A thinking block of a response. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** An encrypted thinking block of a response. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** A server tool call of a response (run by the API). */
export interface ServerToolUseBlock {
  type: 'server_tool_use';
  id: string;
  name: Passthrough;
  input: unknown;
}

/** The result of a server tool call, in a response (its `content` is passed through). */
export interface ServerToolResultBlock<T extends ServerToolResultType = ServerToolResultType> {
  type: T;
  tool_use_id: string;
  content: Passthrough;
}

/** A container upload, in a response. */
export interface ContainerUploadBlock {
  type: 'container_upload';
  file_id: string;
}

/** One block of a response's content. */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ServerToolUseBlock
  | ServerToolResultBlock<'web_search_tool_result'>
  | ServerToolResultBlock<'web_fetch_tool_result'>
  | ServerToolResultBlock<'code_execution_tool_result'>
  | ServerToolResultBlock<'bash_code_execution_tool_result'>
  | ServerToolResultBlock<'text_editor_code_execution_tool_result'>
  | ServerToolResultBlock<'tool_search_tool_result'>
  | ContainerUploadBlock;

/** Why the model stopped. Open (`string & {}`): a reason a newer API adds still reads, as the SDK's `Model` does for ids. */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded' | (string & {});

/** Token usage of one response. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  /** Written tokens by TTL (absent before SDK 0.5x). */
  cache_creation?: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number } | null;
  /** Server-tool requests (`web_fetch_requests` is absent in older SDK versions). */
  server_tool_use?: { web_search_requests: number; web_fetch_requests?: number } | null;
  service_tier?: Passthrough;
  output_tokens_details?: Passthrough;
  inference_geo?: Passthrough;
  speed?: Passthrough;
}

/** A response of `client.messages.create`. */
export interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: Usage;
  container?: Passthrough;
  diagnostics?: Passthrough;
  stop_details?: Passthrough;
}

/** One server-sent event of a streamed response (`message_start`, `content_block_delta`, …). */
export interface RawMessageStreamEvent {
  type: 'message_start' | 'message_delta' | 'message_stop' | 'content_block_start' | 'content_block_delta' | 'content_block_stop';
  [key: string]: unknown;
}

// CLIENTS

/**
 * Any client with `messages.create`: every SDK version's `Anthropic`,
 * `AnthropicBedrock` and `AnthropicVertex`, or your own wrapper. The parameter
 * types are `never` on purpose, so every version's signature is assignable.
 */
export interface MessagesCreateClient {
  readonly messages: { create(params: never, options?: never): PromiseLike<unknown> };
}

/** Any client with `messages.countTokens` (see {@link MessagesCreateClient}). */
export interface CountTokensClient {
  readonly messages: { countTokens(params: never, options?: never): PromiseLike<unknown> };
}

// THE PARAMS CACHEPOINT BUILDS

/** A tool result as every supported SDK version types it: text and image content parts. */
export interface PortableToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (TextBlockParam | ImageBlockParam)[];
  is_error?: boolean;
  cache_control?: CacheControlEphemeral | null;
}

/** The block kinds every supported SDK version knows (0.50 onwards). */
export type PortableContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | DocumentBlockParam
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | ToolUseBlockParam
  | PortableToolResultBlockParam
  | ServerToolUseBlockParam
  | WebSearchToolResultBlockParam;

/** A user or assistant message with {@link PortableContentBlockParam} content. */
export interface PortableMessageParam {
  role: 'user' | 'assistant';
  content: string | PortableContentBlockParam[];
}

/** A tool entry every supported SDK version accepts: a client tool, or a server tool (which names itself). */
export type PortableToolUnion = Tool | (ServerTool & { name: Passthrough });

/**
 * The create params `toAnthropic` and `Session.request` build, typed with what
 * every supported SDK version knows, so they go to that version's
 * `client.messages.create` as they are (0.50 lacks `search_result`, the
 * code-execution results, system messages, …). A block of a newer kind that
 * the timeline holds is still sent as it is: only its static type is narrower.
 */
export interface AnthropicRequestParams extends Omit<MessageCreateParamsNonStreaming, 'system' | 'tools' | 'messages' | GrownRequestField> {
  system?: string | TextBlockParam[];
  tools?: PortableToolUnion[];
  messages: PortableMessageParam[];
  // Typed on the way in (RequestExtras); passed through on the way out: older
  // SDK versions know fewer kinds (0.50 has no adaptive thinking, no display).
  diagnostics?: Passthrough;
  metadata?: Passthrough;
  output_config?: Passthrough;
  service_tier?: Passthrough;
  thinking?: Passthrough;
  tool_choice?: Passthrough;
  speed?: Passthrough;
}

/** Request fields whose kinds grew after SDK 0.50. */
type GrownRequestField = 'diagnostics' | 'metadata' | 'output_config' | 'service_tier' | 'thinking' | 'tool_choice' | 'speed';

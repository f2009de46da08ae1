/**
 * The slice of Bedrock's Converse request that `toBedrockConverse` produces.
 * Our own declarations, so the core needs no AWS SDK; a type test checks they
 * are assignable to `ConverseCommandInput` of `@aws-sdk/client-bedrock-runtime`.
 * Declarations only.
 */

/** A JSON document (tool inputs and schemas). */
export type ConverseDocument = null | boolean | number | string | ConverseDocument[] | { [key: string]: ConverseDocument };

/** `{ cachePoint: { type: 'default', ttl? } }`: everything before it is cached. */
export interface ConverseCachePoint {
  cachePoint: { type: 'default'; ttl?: '5m' | '1h' };
}

export interface ConverseText {
  text: string;
}

export interface ConverseImage {
  image: { format: 'png' | 'jpeg' | 'gif' | 'webp'; source: { bytes: Uint8Array } };
}

/** The document formats Converse names (`DocumentFormat`). */
export type ConverseDocumentFormat = 'pdf' | 'csv' | 'doc' | 'docx' | 'xls' | 'xlsx' | 'html' | 'txt' | 'md';

/** A document: its bytes or its text, the name the model sees, optional citation settings. */
export interface ConverseDocumentBlock {
  document: {
    format: ConverseDocumentFormat;
    name: string;
    source: { bytes: Uint8Array } | { text: string };
    context?: string;
    citations?: { enabled: boolean };
  };
}

export interface ConverseToolUse {
  toolUse: { toolUseId: string; name: string; input: ConverseDocument };
}

export interface ConverseToolResult {
  toolResult: {
    toolUseId: string;
    content: (ConverseText | ConverseImage | ConverseDocumentBlock)[];
    status?: 'success' | 'error';
  };
}

export interface ConverseReasoning {
  reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: Uint8Array };
}

export type ConverseContentBlock =
  | ConverseText
  | ConverseImage
  | ConverseDocumentBlock
  | ConverseToolUse
  | ConverseToolResult
  | ConverseReasoning
  | ConverseCachePoint;

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: ConverseDocument } };
}

/** What `toBedrockConverse` returns: `new ConverseCommand(input)` of the AWS SDK. */
export interface BedrockConverseInput {
  modelId: string;
  system?: (ConverseText | ConverseCachePoint)[];
  messages: ConverseMessage[];
  toolConfig?: { tools: (ConverseToolSpec | ConverseCachePoint)[] };
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  additionalModelRequestFields?: ConverseDocument;
}

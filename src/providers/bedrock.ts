/**
 * Rendered stream → Amazon Bedrock Converse request, and Bedrock's cache rules
 * as data.
 *
 * Converse marks a cache point with a block of its own, `{ cachePoint }`,
 * placed right after the block it closes, in `toolConfig.tools`, `system` or a
 * message's `content`. Claude on Bedrock caches as on Anthropic's API: at most
 * four cache points, a ~20-block lookback, the model's minimum cacheable
 * length, TTL `5m` (default) or `1h`, and TTLs that never increase along
 * tools → system → messages (our placement already puts longer TTLs first).
 * Sources in docs/providers.md.
 */
import { ProviderMappingError } from '../errors.js';
import { base64Of, bytesOf } from '../internal/base64.js';
import type { CachingRules } from '../models/caching.js';
import { MODEL_PROFILES, resolveProfile, type ModelProfile } from '../models/profiles.js';
import type { CachePoint, Rendered } from '../render/types.js';
import type { RedactedThinkingBlockParam, TextBlockParam, ThinkingBlockParam, ToolUseBlockParam } from './anthropic-types.js';
import type {
  BedrockConverseInput,
  ConverseCachePoint,
  ConverseContentBlock,
  ConverseDocument,
  ConverseDocumentBlock,
  ConverseDocumentFormat,
  ConverseImage,
  ConverseMessage,
  ConverseText,
  ConverseToolSpec,
} from './bedrock-types.js';
import type { ProviderProfile, Sourced } from './types.js';

const CHECKED = '2026-11-30';

/** Claude on Bedrock: Anthropic's marker rules through `cachePoint` blocks. */
export const BEDROCK_CLAUDE: CachingRules = Object.freeze({ kind: 'markers', maxMarkers: 4, lookback: 20, implicit: false });

/**
 * The profile of a Claude model on Bedrock: Anthropic's figures under
 * Bedrock's cache rules. Accepts Bedrock ids (with or without a cross-region
 * prefix) and plain Anthropic ids.
 *
 * @throws {UnknownModelError} when the id names no known Claude model
 * @example
 * bedrockProfile('us.anthropic.claude-sonnet-4-5-20250929-v1:0').id; // 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
 */
export function bedrockProfile(modelId: string, overrides: Readonly<Record<string, ModelProfile>> = {}): ModelProfile {
  const own = overrides[modelId];
  if (own) return own;
  // resolveProfile reads Bedrock ids (region prefix, date, version suffix) as the Claude model.
  const p = resolveProfile(modelId, overrides);
  return Object.freeze({ ...p, id: modelId, provider: 'bedrock' as const, caching: BEDROCK_CLAUDE, lookback: 20 });
}

const SOURCES: Readonly<Record<string, Sourced>> = Object.freeze({
  cachePoint: {
    source: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html (type: default; ttl: 5m | 1h, optional)',
    checked: CHECKED,
  },
  ttlOrder: {
    source: 'AWS SDK / Strands BedrockCacheTTL docs: checkpoint TTLs must be non-increasing across toolConfig → system → messages',
    checked: CHECKED,
  },
  limits: {
    source:
      'https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html (Claude: up to 4 cache checkpoints; simplified management checks ~20 preceding blocks)',
    checked: CHECKED,
    estimate: 'the 20-block lookback is stated for the simplified mode; we assume explicit checkpoints look back as far',
  },
  minimums: {
    source: "Anthropic's per-model minimum cacheable lengths (docs.anthropic.com prompt caching), which Bedrock's table repeats",
    checked: CHECKED,
  },
  prices: {
    source: 'Bedrock on-demand prices for Claude equal Anthropic API prices in the regions listed at aws.amazon.com/bedrock/pricing',
    checked: CHECKED,
    estimate: 'regional and cross-region inference prices can differ; pass a custom profile for your region',
  },
});

/** The Bedrock provider profile (Claude models by their Anthropic ids; Bedrock ids resolve through {@link bedrockProfile}). */
export const BEDROCK: ProviderProfile = Object.freeze({
  id: 'bedrock',
  name: 'Amazon Bedrock Converse (Claude)',
  models: Object.freeze(Object.fromEntries(Object.keys(MODEL_PROFILES).map((id) => [id, bedrockProfile(id)]))),
  sources: SOURCES,
});

/** What the caller adds to a Converse request. */
export interface BedrockExtras {
  /** The Bedrock model id (default: the render's model id). */
  readonly modelId?: string;
  readonly inferenceConfig?: BedrockConverseInput['inferenceConfig'];
  readonly additionalModelRequestFields?: ConverseDocument;
}

interface Block {
  readonly type: string;
  readonly [k: string]: unknown;
}

function fail(path: string, why: string): never {
  throw new ProviderMappingError('bedrock', path, why);
}

function cachePoint(point: CachePoint): ConverseCachePoint {
  return { cachePoint: point.ttl === '1h' ? { type: 'default', ttl: '1h' } : { type: 'default' } };
}

const FORMATS: Readonly<Record<string, ConverseImage['image']['format']>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function image(path: string, block: Block): ConverseImage {
  const src = block.source as { type?: string; media_type?: string; data?: string } | undefined;
  const format = FORMATS[src?.media_type ?? ''];
  if (src?.type !== 'base64' || !format || typeof src.data !== 'string') fail(path, 'only base64 png/jpeg/gif/webp images map to Converse');
  return { image: { format, source: { bytes: bytesOf(src.data) } } };
}

/**
 * A Converse document format as the media type of the document block that carries it in the timeline, and back: one
 * type per format, so a document `prepareConverse` read goes back to Bedrock as it came. @internal
 */
export const DOCUMENT_MEDIA_TYPES: Readonly<Record<ConverseDocumentFormat, string>> = Object.freeze({
  pdf: 'application/pdf',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  txt: 'text/plain',
  md: 'text/markdown',
});

const DOCUMENT_FORMATS: Readonly<Record<string, ConverseDocumentFormat>> = Object.fromEntries(
  Object.entries(DOCUMENT_MEDIA_TYPES).map(([format, type]) => [type, format as ConverseDocumentFormat]),
);

/**
 * The names Bedrock takes for a document: "The name can only contain the following characters: Alphanumeric
 * characters, Whitespace characters (no more than one in a row), Hyphens, Parentheses, Square brackets", 1 to 200 of
 * them (DocumentBlock, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html, read
 * 2026-12-02). @internal
 */
export const DOCUMENT_NAME = /^(?!.*\s\s)[\p{L}\p{N}\s\-()[\]]{1,200}$/u;

/** A document block (base64 or text source, a media type of {@link DOCUMENT_MEDIA_TYPES}, a title) as Converse's. */
function document(path: string, block: Block): ConverseDocumentBlock {
  const src = block.source as { type?: string; media_type?: string; data?: unknown } | undefined;
  const format = DOCUMENT_FORMATS[src?.media_type ?? ''];
  if (!format || (src?.type !== 'base64' && src?.type !== 'text') || typeof src.data !== 'string')
    fail(path, 'only base64 or text documents of a format Converse names (pdf, csv, doc, docx, xls, xlsx, html, txt, md) map to Converse');
  if (typeof block.title !== 'string' || block.title === '') fail(path, 'a Converse document needs a name: give the document block a title');
  if (!DOCUMENT_NAME.test(block.title))
    fail(
      path,
      `the title ${JSON.stringify(block.title)} is the Converse document's name, which Bedrock takes only as 1 to 200 letters, digits, single spaces, hyphens, parentheses and square brackets`,
    );
  const citations = block.citations as { enabled?: unknown } | null | undefined;
  return {
    document: {
      format,
      name: block.title,
      source: src.type === 'base64' ? { bytes: bytesOf(src.data) } : { text: src.data },
      ...(typeof block.context === 'string' ? { context: block.context } : {}),
      ...(typeof citations?.enabled === 'boolean' ? { citations: { enabled: citations.enabled } } : {}),
    },
  };
}

function content(block: Block, path: string): ConverseContentBlock {
  switch (block.type) {
    case 'text':
      return { text: String(block.text) };
    case 'image':
      return image(path, block);
    case 'document':
      return document(path, block);
    case 'tool_use':
      return { toolUse: { toolUseId: String(block.id), name: String(block.name), input: (block.input ?? {}) as ConverseDocument } };
    case 'tool_result': {
      const c = block.content;
      const parts: (ConverseText | ConverseImage | ConverseDocumentBlock)[] =
        c === undefined
          ? []
          : typeof c === 'string'
            ? [{ text: c }]
            : (c as Block[]).map((p) =>
                p.type === 'text'
                  ? { text: String(p.text) }
                  : p.type === 'image'
                    ? image(path, p)
                    : p.type === 'document'
                      ? document(path, p)
                      : fail(path, `tool_result content "${p.type}"`),
              );
      return {
        toolResult: {
          toolUseId: String(block.tool_use_id),
          content: parts.length > 0 ? parts : [{ text: '(no output)' }],
          ...(block.is_error === true ? { status: 'error' as const } : {}),
        },
      };
    }
    case 'thinking':
      return {
        reasoningContent: {
          reasoningText: { text: String(block.thinking), ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) },
        },
      };
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: bytesOf(String(block.data)) } };
    default:
      return fail(path, `content block of type "${block.type}" has no Converse equivalent`);
  }
}

function toolSpec(t: { name?: unknown; description?: unknown; input_schema?: unknown; type?: unknown }, path: string): ConverseToolSpec {
  if (typeof t.name !== 'string' || t.input_schema === undefined || (t.type !== undefined && t.type !== 'custom')) {
    fail(path, `tool "${String(t.name)}" is a server tool; only custom tools with an input_schema map to Converse`);
  }
  return {
    toolSpec: {
      name: t.name,
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      inputSchema: { json: t.input_schema as ConverseDocument },
    },
  };
}

/** A Messages API marker (`cache_control`) as a Converse `cachePoint` block, or none. */
function pointOf(block: Block): ConverseCachePoint[] {
  const cc = block.cache_control as { ttl?: string } | null | undefined;
  return cc ? [{ cachePoint: cc.ttl === '1h' ? { type: 'default', ttl: '1h' } : { type: 'default' } }] : [];
}

/**
 * Messages API params with their `cache_control` markers (what `prepare` returns) as the Converse request's
 * `system`, `messages` and `toolConfig.tools`: a `cachePoint` block after each marked block. @internal
 */
export function converseOfParams(params: {
  readonly system?: unknown;
  readonly tools?: readonly unknown[] | undefined;
  readonly messages: readonly { readonly role: string; readonly content: unknown }[];
}): Pick<BedrockConverseInput, 'system' | 'messages' | 'toolConfig'> {
  const system = (typeof params.system === 'string' ? [{ type: 'text', text: params.system }] : ((params.system ?? []) as Block[])).flatMap(
    (b): (ConverseText | ConverseCachePoint)[] => [{ text: String(b.text) }, ...pointOf(b)],
  );
  const tools = (params.tools ?? []).flatMap((t, i) => [toolSpec(t as Block, `tools[${i}]`), ...pointOf(t as Block)]);
  const messages = params.messages.map((m, i): ConverseMessage => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[]);
    return {
      role: m.role === 'assistant' ? 'assistant' : 'user',
      content: blocks.flatMap((b, j) => [content(b, `messages[${i}].content[${j}]`), ...pointOf(b)]),
    };
  });
  return { ...(system.length > 0 ? { system } : {}), messages, ...(tools.length > 0 ? { toolConfig: { tools } } : {}) };
}

/**
 * Builds a Converse request (`new ConverseCommand(input)`) from a render, with
 * a `cachePoint` block after every cache point.
 *
 * @example
 * const r = render(state, { profile: bedrockProfile('us.anthropic.claude-sonnet-4-5-20250929-v1:0') });
 * const out = await bedrock.send(new ConverseCommand(toBedrockConverse(r, { inferenceConfig: { maxTokens: 4096 } })));
 */
export function toBedrockConverse(rendered: Rendered, extras: BedrockExtras = {}): BedrockConverseInput {
  const marks = new Map<number, CachePoint>();
  for (const p of rendered.cachePoints) marks.set(p.index, p);
  const tools: NonNullable<BedrockConverseInput['toolConfig']>['tools'] = [];
  const system: NonNullable<BedrockConverseInput['system']> = [];
  const messages: ConverseMessage[] = [];
  rendered.stream.forEach((b, i) => {
    const point = marks.get(i);
    if (b.role === 'tools') {
      tools.push(toolSpec(b.param as Block, b.path));
      if (point) tools.push(cachePoint(point));
      return;
    }
    if (b.role === 'system') {
      system.push({ text: String((b.param as Block).text) });
      if (point) system.push(cachePoint(point));
      return;
    }
    let m = messages.at(-1);
    if (!m || m.role !== b.role) {
      m = { role: b.role, content: [] };
      messages.push(m);
    }
    m.content.push(content(b.param as Block, b.path));
    if (point) m.content.push(cachePoint(point));
  });
  return {
    modelId: extras.modelId ?? rendered.model,
    ...(system.length > 0 ? { system } : {}),
    messages,
    ...(tools.length > 0 ? { toolConfig: { tools } } : {}),
    ...(extras.inferenceConfig ? { inferenceConfig: extras.inferenceConfig } : {}),
    ...(extras.additionalModelRequestFields !== undefined ? { additionalModelRequestFields: extras.additionalModelRequestFields } : {}),
  };
}

/** A block of a Converse response, as `appendResponse` takes it. */
export type ConverseResponseBlock = TextBlockParam | ToolUseBlockParam | ThinkingBlockParam | RedactedThinkingBlockParam;

/**
 * A Converse response's message as the blocks `appendResponse` records (text,
 * tool uses, reasoning as thinking with its signature, redacted reasoning as redacted_thinking).
 *
 * @example
 * state = appendResponse(rendered.state, fromConverseOutput(await bedrock.send(new ConverseCommand(input))));
 */
export function fromConverseOutput(output: {
  readonly output?: { readonly message?: { readonly content?: readonly unknown[] | undefined } | undefined } | undefined;
}): ConverseResponseBlock[] {
  const out: ConverseResponseBlock[] = [];
  for (const c of output.output?.message?.content ?? []) {
    const b = c as {
      text?: string;
      toolUse?: { toolUseId?: string; name?: string; input?: unknown };
      reasoningContent?: { reasoningText?: { text?: string; signature?: string }; redactedContent?: Uint8Array | string };
    };
    if (typeof b.text === 'string') out.push({ type: 'text', text: b.text });
    else if (b.toolUse) out.push({ type: 'tool_use', id: String(b.toolUse.toolUseId), name: String(b.toolUse.name), input: b.toolUse.input ?? {} });
    else if (b.reasoningContent?.reasoningText) {
      const r = b.reasoningContent.reasoningText;
      // Without a signature the block is kept as it came (typed as signed): prepare and Session then refuse it by its path.
      out.push({ type: 'thinking', thinking: String(r.text ?? ''), ...(r.signature ? { signature: r.signature } : {}) } as ThinkingBlockParam);
    } else if (b.reasoningContent?.redactedContent !== undefined) {
      // Sent back as it came: the API decrypts it to continue (docs.aws.amazon.com/bedrock/latest/userguide/
      // claude-messages-thinking-encryption.html, read 2026-12-01); dropping it changes the turn's thinking.
      out.push({ type: 'redacted_thinking', data: base64Of(b.reasoningContent.redactedContent) });
    }
  }
  return out;
}

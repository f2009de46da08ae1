/**
 * The few helpers every layer needs on raw API blocks: message content as a
 * list of blocks, and removing cache markers (`cache_control`) exactly where
 * the API accepts one. Never anywhere else: a tool's input may hold a key
 * named `cache_control`, and inputs are re-sent byte for byte.
 */

type Loose = Record<string, unknown>;

const isObject = (v: unknown): v is Loose => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Message (or system) content as a list of blocks: a string is one text block, an empty string none. */
export function contentBlocks(content: unknown): readonly unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/**
 * What is wrong with a tool definition's input schema, or undefined: a custom tool (no `type`, or `custom`) needs
 * an `input_schema` object with a `type` (the SDK's `Tool.input_schema`; the API refuses the request without); server tools
 * (a `type` like `web_search_20250305`) have none. An MCP tool forwarded as is spells it `inputSchema`.
 */
export function toolSchemaProblem(tool: Loose): string | undefined {
  if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') return undefined;
  // The API's 400s name both (seen in public reports, 2026): "tools.0.custom.input_schema: Field required" and
  // "tools.0.custom.input_schema.type: Field required" (an MCP or OpenAI-style schema without a top-level type).
  if (isObject(tool.input_schema)) {
    if (tool.input_schema.type !== undefined) return undefined;
    return `tool "${String(tool.name)}": its input_schema needs a "type" ("object", the API requires it)`;
  }
  const hint = 'inputSchema' in tool ? ' (this tool has `inputSchema`, the MCP spelling: rename it)' : '';
  return `tool "${String(tool.name)}" needs an input_schema, a JSON Schema object${hint}`;
}

/**
 * The block without its cache marker; a tool_result's content parts lose
 * theirs too. The same object when there was none.
 */
export function withoutMarker<T>(block: T): T {
  if (!isObject(block)) return block;
  let out: Loose | undefined;
  if ('cache_control' in block) {
    const { cache_control: _marker, ...rest } = block;
    out = rest;
  }
  const content = block.content;
  if (block.type === 'tool_result' && Array.isArray(content)) {
    const parts = content.map(withoutMarker);
    if (parts.some((p, i) => p !== content[i])) out = { ...(out ?? block), content: parts };
  }
  return (out ?? block) as T;
}

function blocksWithoutMarkers(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  const out = list.map(withoutMarker);
  return out.some((b, i) => b !== list[i]) ? out : list;
}

/**
 * A request, or any part of one (`{ system, tools }`), without cache markers:
 * the top-level one (automatic caching), on tools, on system blocks, on
 * message content blocks and on tool_result parts. Same objects where nothing
 * changes.
 *
 * @example
 * stripCacheControl(toAnthropic(rendered)).messages; // no cache_control on any block
 */
export function stripCacheControl<T>(params: T): T {
  if (!isObject(params)) return params;
  const out: Loose = { ...params };
  delete out.cache_control;
  if ('tools' in params) out.tools = blocksWithoutMarkers(params.tools);
  if ('system' in params) out.system = blocksWithoutMarkers(params.system);
  if (Array.isArray(params.messages)) {
    const messages = params.messages as unknown[];
    const next = messages.map((m) => (isObject(m) && Array.isArray(m.content) ? { ...m, content: blocksWithoutMarkers(m.content) } : m));
    out.messages = next;
  }
  return out as T;
}

/**
 * Anthropic glue: a model response's `tool_use` blocks through the cache, in
 * one parallel wave, answered as the `tool_result` blocks of the next user
 * message.
 */
import { InvalidOptionError } from '../errors.js';
import type { PortableToolResultBlockParam } from '../providers/anthropic-types.js';
import type { ToolCallOptions, ToolCallResult, ToolRunner, ToolUseLike } from './types.js';

/** The one method of the cache the glue uses. */
export interface CallsTools {
  call<TArgs>(name: string, args: TArgs, run: ToolRunner<TArgs>, options: ToolCallOptions): Promise<ToolCallResult>;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Content no tool_result can hold and the cache cannot replay (a number, `null`, `{}`), shown for an error message;
 * undefined for a string, an array of content blocks, or none.
 */
export function unfitContent(content: unknown): string | undefined {
  if (content === undefined || typeof content === 'string' || Array.isArray(content)) return undefined;
  return typeof content === 'object' && content !== null ? JSON.stringify(content).slice(0, 80) : String(content);
}

/** A handler returned content no tool_result can hold ({@link unfitContent}): the API would refuse the next request. */
function contentError(use: ToolUseLike, content: unknown): InvalidOptionError {
  const got = unfitContent(content) ?? String(content);
  return new InvalidOptionError(
    `handlers.${use.name}`,
    `returned ${got} for call ${use.id}: a handler returns a string, an array of content blocks, or { content, isError }`,
    { value: content },
  );
}

/** See {@link ToolCache.runToolUses}. */
export async function runToolUses<TBlock extends { readonly type: string }>(
  cache: CallsTools,
  blocks: readonly TBlock[],
  handlers: Readonly<Record<string, ToolRunner<never>>>,
  options: { readonly scope: string; readonly onResult?: (result: ToolCallResult) => void },
): Promise<PortableToolResultBlockParam[]> {
  // Checked once, here: inside the wave a missing scope fails every call and reaches the model as its tool's error.
  if (typeof options?.scope !== 'string') {
    throw new InvalidOptionError('scope', "runToolUses needs { scope } (the tenant/user id); use '' for a single-tenant agent", { value: options?.scope });
  }
  // So is a handler that is not a function: inside the wave it would reach the model as its tool's error.
  if (handlers === null || typeof handlers !== 'object')
    throw new InvalidOptionError('handlers', 'expected { toolName: (input, { callId }) => content }', { value: handlers });
  for (const name of Object.keys(handlers)) {
    const h: unknown = handlers[name];
    if (typeof h !== 'function')
      throw new InvalidOptionError(`handlers.${name}`, `expected the tool's function (input, { callId }) => content, got ${h === null ? 'null' : typeof h}`, {
        value: h,
      });
  }
  const uses = blocks.filter((b) => b.type === 'tool_use') as unknown as ToolUseLike[];
  return Promise.all(
    uses.map(async (use): Promise<PortableToolResultBlockParam> => {
      const handler = Object.hasOwn(handlers, use.name) ? handlers[use.name] : undefined;
      if (handler === undefined) {
        return { type: 'tool_result', tool_use_id: use.id, content: `Error: no handler for tool "${use.name}"`, is_error: true };
      }
      let r: ToolCallResult;
      try {
        r = await cache.call(use.name, use.input, handler as ToolRunner<unknown>, { scope: options.scope, callId: use.id });
      } catch (e) {
        // ToolCache.call refuses content no tool_result can hold (its `run` option): the handler's bug, the caller's to see.
        if (e instanceof InvalidOptionError && e.option === 'run' && e.value !== undefined) throw contentError(use, e.value);
        return { type: 'tool_result', tool_use_id: use.id, content: `Error: ${errorMessage(e)}`, is_error: true };
      }
      // Outside the try: a throwing observer is the caller's bug, not a tool failure to report to the model.
      options.onResult?.(r);
      // So is content no tool_result can hold (a number, `{}`): sent as is, the API would refuse the next request.
      if (unfitContent(r.content) !== undefined) throw contentError(use, r.content);
      const block: PortableToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: r.callId,
        content: r.content as PortableToolResultBlockParam['content'] & {},
      };
      return r.isError ? { ...block, is_error: true } : block;
    }),
  );
}

/**
 * Whether a wrapped Anthropic model's provider sends `eager_input_streaming: true` on a streamed call's function
 * tools. The engine's view of the tools must be the bytes the provider sends: a view with the flag where the
 * provider sends none made every generate / stream switch look like a tools change (a false
 * `tool_streaming_switched` warning and a resync the cache did not suffer), and the reverse hid a real one.
 *
 * By specification: `@ai-sdk/anthropic` 2.x (V2, ai 5) never adds the flag; 4.x (V4, ai 7) always does. V3 (ai 6)
 * does not decide it: 3.0.0 to 3.0.70 send a streamed call's tools as an unstreamed one's (with the
 * `fine-grained-tool-streaming-2025-05-14` beta header), 3.0.71 and later add the flag (read from the npm tarballs,
 * 2026-12-02). Nothing public tells them apart, so a V3 model is asked once, through the provider's own request
 * builder (`getArgs`, what `doStream` sends, no network), with a one-tool streamed call; a model without it (another
 * wrapper, a later rename) keeps the guess that 3.0.71+ gives.
 */
import type { WrappedModel } from './types.js';

/** The probe: one user text and one function tool, streamed (`userSuppliedBetas`: 3.x `getArgs` iterates it). */
const PROBE = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'probe' }] }],
  tools: [{ type: 'function', name: 'probe', inputSchema: { type: 'object', properties: {} } }],
  stream: true,
  userSuppliedBetas: new Set<string>(),
} as const;

const answers = new WeakMap<object, Promise<boolean>>();

/** What the provider's request builder puts on the probe's tool; `undefined` when it cannot be asked. */
async function probe(model: object): Promise<boolean | undefined> {
  const getArgs = (model as { getArgs?: unknown }).getArgs;
  if (typeof getArgs !== 'function') return undefined;
  try {
    const built = (await getArgs.call(model, { ...PROBE, userSuppliedBetas: new Set<string>() })) as { args?: { tools?: unknown } } | undefined;
    const tools = built?.args?.tools;
    if (!Array.isArray(tools) || tools.length !== 1 || typeof tools[0] !== 'object' || tools[0] === null) return undefined;
    return (tools[0] as { eager_input_streaming?: unknown }).eager_input_streaming === true;
  } catch {
    return undefined;
  }
}

/**
 * Whether `model`'s streamed calls carry `eager_input_streaming: true` on their function tools (unless the call
 * sets `toolStreaming: false`). Asked once per model object.
 *
 * @example
 * const eager = await streamsEagerTools(anthropic('claude-sonnet-4-6')); // true on @ai-sdk/anthropic 4.x
 */
export function streamsEagerTools(model: WrappedModel): Promise<boolean> {
  const spec = (model as { specificationVersion?: string }).specificationVersion;
  if (spec === 'v2') return Promise.resolve(false);
  if (spec !== 'v3') return Promise.resolve(true);
  let answer = answers.get(model);
  if (answer === undefined) {
    answer = probe(model).then((a) => a ?? true);
    answers.set(model, answer);
  }
  return answer;
}

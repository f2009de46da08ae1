/**
 * Shared builders for the simulator tests: a test model with round numbers
 * ($1/MTok input, minimum 100 tokens), a token counter where a text block costs
 * its length, and small request builders.
 */
import type { MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import fc from 'fast-check';
import { customProfile, type ModelProfile } from '../../src/models/profiles.js';
import type { SimParams, SimRequest, SimulatorOptions } from '../../src/sim/index.js';

export const MODEL = 'sim-test';
export const OTHER_MODEL = 'sim-test-2';

export const PROFILE: ModelProfile = customProfile(MODEL, { prices: { input: 1, output: 5 }, minCacheableTokens: 100 });
export const PROFILES: Readonly<Record<string, ModelProfile>> = {
  [MODEL]: PROFILE,
  [OTHER_MODEL]: customProfile(OTHER_MODEL, { prices: { input: 3, output: 15 }, minCacheableTokens: 200 }),
};

/** Text blocks cost their length; thinking its length; tool_use 10; tool_result its text; tools 100. */
export function countTokens(block: unknown): number {
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return String(b.text).length;
    case 'thinking':
      return String(b.thinking).length;
    case 'tool_use':
      return 10;
    case 'tool_result':
      return typeof b.content === 'string' ? b.content.length : 10;
    default:
      return b.name !== undefined ? 100 : 10;
  }
}

export const OPTIONS: SimulatorOptions = { profiles: PROFILES, countTokens };

export const MIN = 60_000;

export type Marker = { type: 'ephemeral'; ttl?: '5m' | '1h' };
export const M5: Marker = { type: 'ephemeral' };
export const M1H: Marker = { type: 'ephemeral', ttl: '1h' };

/** A text block of `n` tokens (under the test counter), optionally marked. */
export function text(n: number, marker?: Marker, fill = 'x'): TextBlockParam {
  const t = fill.repeat(Math.ceil(n / fill.length)).slice(0, n);
  return marker ? { type: 'text', text: t, cache_control: marker } : { type: 'text', text: t };
}

export function tool(name: string, marker?: Marker): Tool {
  const t: Tool = { name, description: `the ${name} tool`, input_schema: { type: 'object', properties: {} } };
  return marker ? { ...t, cache_control: marker } : t;
}

/** A request with the given system blocks and messages. */
export function req(system: TextBlockParam[], messages: MessageParam[], extra: Partial<SimParams> = {}): SimParams {
  return { model: MODEL, max_tokens: 1024, system, messages, ...extra };
}

/** `n` single-block messages alternating user/assistant, each `size` tokens, block i marked when `marks[i]` is set. */
export function chat(n: number, size = 10, marks: Record<number, Marker> = {}): MessageParam[] {
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: [text(size, marks[i], String.fromCharCode(97 + (i % 26)))],
  }));
}

/** Counts the markers of a request (block-level plus top-level). */
export function markerCount(params: SimParams): number {
  let n = (params as { cache_control?: unknown }).cache_control ? 1 : 0;
  const has = (b: unknown): boolean => typeof b === 'object' && b !== null && (b as { cache_control?: unknown }).cache_control != null;
  for (const t of params.tools ?? []) if (has(t)) n++;
  if (Array.isArray(params.system)) for (const b of params.system) if (has(b)) n++;
  for (const m of params.messages) if (Array.isArray(m.content)) for (const b of m.content) if (has(b)) n++;
  return n;
}

const GAPS = [1_000, 1_000, 20_000, 20_000, 4 * MIN, 5 * MIN, 6 * MIN, 20 * MIN, 59 * MIN, 70 * MIN];

/**
 * Random plain sessions (no markers): a system of 1–3 blocks, 0–2 tools, and a
 * conversation that mostly grows by rounds (text, thinking, tool_use runs and
 * tool_result runs), sometimes edits the system or drops old messages, and
 * sometimes switches model; gaps from a second to 70 minutes.
 */
export const sessionArb: fc.Arbitrary<SimRequest[]> = fc
  .record({
    system: fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 1, maxLength: 3 }),
    tools: fc.integer({ min: 0, max: 2 }),
    steps: fc.array(
      fc.record({
        gap: fc.constantFrom(...GAPS),
        kind: fc.constantFrom('text', 'text', 'tools', 'tools', 'thinking', 'edit_system', 'drop', 'switch'),
        width: fc.integer({ min: 1, max: 12 }),
        size: fc.integer({ min: 1, max: 80 }),
      }),
      { minLength: 1, maxLength: 14 },
    ),
  })
  .map(({ system, tools, steps }) => {
    let sys = system.map((n, i) => text(n, undefined, `s${i}`));
    const toolDefs = Array.from({ length: tools }, (_, i) => tool(`t${i}`));
    let messages: MessageParam[] = [{ role: 'user', content: [text(50, undefined, 'q')] }];
    let model = MODEL;
    let at = 1_700_000_000_000;
    const out: SimRequest[] = [];
    let n = 0;
    for (const s of steps) {
      n++;
      at += s.gap;
      if (s.kind === 'text') {
        messages = [...messages, { role: 'assistant', content: [text(s.size, undefined, `a${n}`)] }, { role: 'user', content: `u${n}`.repeat(s.size) }];
      } else if (s.kind === 'thinking') {
        messages = [
          ...messages,
          {
            role: 'assistant',
            content: [{ type: 'thinking', thinking: `th${n}`, signature: 'sig' }, { type: 'text', text: '' }, text(s.size, undefined, `b${n}`)],
          },
          { role: 'user', content: [text(s.size, undefined, `v${n}`)] },
        ];
      } else if (s.kind === 'tools') {
        const ids = Array.from({ length: s.width }, (_, k) => `tu_${n}_${k}`);
        messages = [
          ...messages,
          { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 't0', input: { k: id } })) },
          { role: 'user', content: ids.map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: `r${id}`.repeat(s.size % 9) })) },
        ];
      } else if (s.kind === 'edit_system') {
        sys = [...sys.slice(0, -1), text(s.size, undefined, `e${n}`)];
      } else if (s.kind === 'drop' && messages.length > 3) {
        messages = messages.slice(2);
      } else if (s.kind === 'switch') {
        model = model === MODEL ? OTHER_MODEL : MODEL;
      }
      const params: SimParams = { model, max_tokens: 1024, system: sys, messages, ...(toolDefs.length ? { tools: toolDefs } : {}) };
      out.push({ at, params });
    }
    return out;
  });

/**
 * Where a replay's dollars go: every priced request of a comparison split by
 * what its blocks are (the envelope, file texts, other tool results, tool
 * inputs, thinking, notes, …) and by how each token was billed (read from
 * cache, written, sent uncached). The simulator bills a request by prefix
 * positions (docs/simulator.md: tokens up to the read are read, up to the last
 * marker written, the rest input), so each block's tokens are split at those
 * same positions.
 *
 * It answers "which lever could lower this bill": a kind's `read` dollars are
 * what removing it after it was first shown could save at most (its write and
 * uncached parts are paid by showing it once), so a lever on a kind whose reads
 * are a few per cent of the total cannot move a ratio by more than that.
 *
 * Forced recall rounds (requests the replay inserted) are one kind of their
 * own, with their recall calls' output tokens; output tokens of the trace's
 * own requests are never part of a comparison and are not counted.
 */
import { hiddenNotePattern, PRUNE_NOTICE } from '../render/notes.js';
import { CacheSimulator } from '../sim/simulator.js';
import type { SimParams } from '../sim/types.js';
import { callTargets } from '../toolcache/targets.js';
import type { TraceComparison } from './compare.js';

/** What a block of a request is, for {@link spendByKind}. */
export type SpendKind =
  | 'envelope'
  | 'file texts'
  | 'other results'
  | 'small results'
  | 'write inputs'
  | 'other inputs'
  | 'thinking'
  | 'assistant text'
  | 'user text'
  | 'notes, notices, summaries'
  | 'recall rounds';

/** Dollars of one kind, by how its tokens were billed. */
export interface KindSpend {
  readonly read: number;
  readonly write: number;
  readonly input: number;
  /** Output tokens (recall rounds only). */
  readonly output: number;
  readonly total: number;
}

type Block = { type?: string; name?: string; id?: string; input?: unknown; content?: unknown; text?: string; tool_use_id?: string; is_error?: boolean };

function resultText(b: Block): string {
  if (typeof b.content === 'string') return b.content;
  if (!Array.isArray(b.content)) return '';
  return (b.content as Block[]).map((p) => (p.type === 'text' ? (p.text ?? '') : JSON.stringify(p))).join('');
}

function kindOf(params: SimParams, path: string, calls: ReadonlyMap<string, Block>, minChars: number): SpendKind {
  if (path.startsWith('tools') || path.startsWith('system')) return 'envelope';
  const m = /^messages\.(\d+)\.content\.(\d+)/.exec(path);
  const message = m ? params.messages[Number(m[1])] : undefined;
  if (!message) return 'user text';
  const content: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Block[]);
  const b = content[Number(m![2])] ?? {};
  switch (b.type) {
    case 'thinking':
    case 'redacted_thinking':
      return 'thinking';
    case 'tool_use': {
      if (b.input !== null && typeof b.input === 'object' && 'hidden' in b.input) return 'notes, notices, summaries';
      return callTargets(b.name ?? '', b.input).kind === 'write' ? 'write inputs' : 'other inputs';
    }
    case 'tool_result': {
      const text = resultText(b);
      if (hiddenNotePattern.test(text)) return 'notes, notices, summaries';
      if (text.length <= minChars) return 'small results';
      const call = calls.get(b.tool_use_id ?? '');
      const t = call ? callTargets(call.name ?? '', call.input) : undefined;
      return t && t.kind === 'read' && t.files.length > 0 && !b.is_error ? 'file texts' : 'other results';
    }
    case 'text': {
      const text = b.text ?? '';
      if (message.role === 'assistant') return 'assistant text';
      return hiddenNotePattern.test(text) || text === PRUNE_NOTICE ? 'notes, notices, summaries' : 'user text';
    }
    default:
      return message.role === 'assistant' ? 'assistant text' : 'user text';
  }
}

/**
 * The engine's dollars of a comparison, by kind of block and billing field.
 *
 * @param minChars results at or under this many characters count as small (economy's `prune.minChars`)
 * @example
 * const c = await compareTrace(() => readTrace('fixtures/coding.jsonl'), { policy: 'economy' });
 * spendByKind(c)['file texts'].read; // dollars spent re-reading file texts
 */
export function spendByKind(c: TraceComparison, minChars = 300): Readonly<Record<SpendKind, KindSpend>> {
  const sim = new CacheSimulator({ profiles: Object.fromEntries(c.engine.map((r) => [r.request.model, r.rendered.profile])) });
  const acc = new Map<SpendKind, { read: number; write: number; input: number; output: number }>();
  const add = (k: SpendKind, field: 'read' | 'write' | 'input' | 'output', d: number): void => {
    let a = acc.get(k);
    if (!a) acc.set(k, (a = { read: 0, write: 0, input: 0, output: 0 }));
    a[field] += d;
  };
  c.engine.forEach((r, i) => {
    const res = c.engineResults[i];
    if (!res?.usage) return;
    const prices = r.rendered.profile.prices;
    const u = res.usage;
    const A = u.cache_read_input_tokens;
    const B = A + u.cache_creation.ephemeral_1h_input_tokens;
    const C = B + u.cache_creation.ephemeral_5m_input_tokens;
    const params = r.request as SimParams;
    const calls = new Map<string, Block>();
    for (const msg of params.messages)
      if (Array.isArray(msg.content)) for (const b of msg.content as Block[]) if (b.type === 'tool_use' && b.id) calls.set(b.id, b);
    // The simulator's billing may switch to long-context prices; the split uses the request's own totals.
    const scale = res.cost.total > 0 ? res.cost.total / priced(prices, A, B - A, C - B, Math.max(0, res.explain.totalTokens - C)) : 1;
    let prev = 0;
    for (const blk of sim.prefixOf(params).blocks) {
      const k: SpendKind = r.forced ? 'recall rounds' : kindOf(params, blk.path, calls, minChars);
      const lo = prev;
      const hi = blk.cumTokens;
      prev = hi;
      const seg = (a: number, b: number): number => Math.max(0, Math.min(hi, b) - Math.max(lo, a));
      add(k, 'read', (scale * seg(0, A) * prices.cacheRead) / 1e6);
      add(k, 'write', (scale * (seg(A, B) * prices.cacheWrite1h + seg(B, C) * prices.cacheWrite5m)) / 1e6);
      add(k, 'input', (scale * seg(C, Number.POSITIVE_INFINITY) * prices.input) / 1e6);
    }
    if (r.recallOutputTokens) add('recall rounds', 'output', (r.recallOutputTokens * prices.output) / 1e6);
  });
  const out = {} as Record<SpendKind, KindSpend>;
  for (const k of SPEND_KINDS) {
    const a = acc.get(k) ?? { read: 0, write: 0, input: 0, output: 0 };
    out[k] = { ...a, total: a.read + a.write + a.input + a.output };
  }
  return out;
}

/** Every kind, in the order tables list them. */
export const SPEND_KINDS: readonly SpendKind[] = [
  'envelope',
  'file texts',
  'other results',
  'small results',
  'write inputs',
  'other inputs',
  'thinking',
  'assistant text',
  'user text',
  'notes, notices, summaries',
  'recall rounds',
];

function priced(
  p: { cacheRead: number; cacheWrite1h: number; cacheWrite5m: number; input: number },
  read: number,
  w1h: number,
  w5m: number,
  input: number,
): number {
  return (read * p.cacheRead + w1h * p.cacheWrite1h + w5m * p.cacheWrite5m + input * p.input) / 1e6;
}

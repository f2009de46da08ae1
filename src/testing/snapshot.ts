/**
 * A readable text form of a rendered request, for snapshot tests and the CLI:
 * one line per block with its position, role, kind, path and tokens, a mark for
 * each cache point (①..④ with its TTL) and for hidden, pruned and summary
 * blocks, and the tail fenced off.
 *
 * Under each block, its payload exactly as sent: the JSON itself when short,
 * else its head and tail with the length and a content hash; and in the
 * header, the hash and size of the whole serialized request. So every byte
 * the provider would see changes the snapshot (a snapshot diff is a byte diff),
 * and the diff says which block changed.
 */
import { createHash } from 'node:crypto';
import { toAnthropic } from '../providers/anthropic.js';
import type { CachePointLabel, Rendered } from '../render/types.js';

/** Options of {@link formatRendered}. */
export interface FormatOptions {
  /** Show each block's payload and the request hash (default true). Without them, a byte change may not show. */
  readonly content?: boolean;
}

/** Payloads up to this many characters of JSON are shown whole. */
const SHORT = 160;
const HEAD = 90;
const TAIL = 40;

function sha256(text: string, chars: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, chars);
}

/** One line: the payload's JSON, or head…tail with its length and hash when long. */
export function payloadLine(param: unknown): string {
  const json = JSON.stringify(param) ?? 'undefined';
  if (json.length <= SHORT) return json;
  const n = json.length.toLocaleString('en-US');
  return `${json.slice(0, HEAD)} … ${json.slice(-TAIL)}  (${n} chars, sha256 ${sha256(json, 16)})`;
}

const CIRCLED: Record<CachePointLabel, string> = { 0: '⓪', 1: '①', 2: '②', 3: '③', 4: '④' };

function pad(s: string | number, n: number, right = false): string {
  const t = String(s);
  return right ? t.padStart(n) : t.padEnd(n);
}

/**
 * Formats a render as text.
 *
 * @example
 * console.log(formatRendered(render(state)));
 */
export function formatRendered(rendered: Rendered, options: FormatOptions = {}): string {
  const content = options.content ?? true;
  const t = rendered.tokens;
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    `${rendered.model} · turn ${rendered.turn} · round ${rendered.round} · ${n(t.total)} tokens (envelope ${n(t.envelope)} · timeline ${n(t.timeline)} · tail ${n(t.tail)})`,
  ];
  if (content) {
    const request = JSON.stringify(toAnthropic(rendered));
    lines.push(`request: ${n(request.length)} bytes, sha256 ${sha256(request, 16)}`);
  }
  const points = new Map(rendered.cachePoints.map((p) => [p.index, p]));
  const width = Math.max(30, ...rendered.stream.map((b) => b.path.length));
  rendered.stream.forEach((b, i) => {
    if (i === rendered.tailStart) lines.push('──── tail (volatile, never cached) ────');
    const p = points.get(i);
    const mark = p ? ` ${p.labels.map((l) => CIRCLED[l]).join('')} ${p.ttl}${p.moved ? ` (moved: ${p.moved})` : ''}` : '';
    const flag = b.hidden ? ` [${b.hidden === 'agent' ? 'hidden' : 'pruned'}]` : b.kind === 'summary' ? ' [summary]' : '';
    const type = (b.param as { type?: string }).type ?? 'tool';
    lines.push(`${pad(i, 4, true)}  ${pad(b.role, 9)} ${pad(`${b.kind}:${type}`, 22)} ${pad(b.path, width)} ${pad(n(b.tokens), 8, true)}${mark}${flag}`);
    if (content) lines.push(`        ${payloadLine(b.param)}`);
  });
  for (const d of rendered.decisions) lines.push(`decision: ${JSON.stringify(d)}`);
  return lines.join('\n');
}

/** Whether a value looks like a render (for the vitest serializer). */
export function isRendered(value: unknown): value is Rendered {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Rendered).stream) &&
    Array.isArray((value as Rendered).cachePoints) &&
    typeof (value as Rendered).tailStart === 'number'
  );
}

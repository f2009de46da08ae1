/**
 * The prefix-stability invariant as a reusable assertion (DESIGN.md invariant 2):
 * if between two renders only rounds were appended, the first request,
 * serialized with cache markers stripped, up to and including its ④ block, is
 * a byte-for-byte prefix of the second.
 */
import { serializeWithOffsets, stripCacheControl, toAnthropic, type RequestExtras } from '../providers/anthropic.js';
import type { Rendered } from '../render/types.js';

/** Thrown when the invariant does not hold; says where the bytes diverge. */
export class PrefixStabilityError extends Error {
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.name = 'PrefixStabilityError';
    this.offset = offset;
  }
}

/**
 * The request without any cache marker: rendered without points (no copy of a
 * payload; the same bytes as stripping the markers, which re-parses the whole
 * request), and without an automatic-caching marker in the extras.
 */
function unmarked(rendered: Rendered, extras: RequestExtras) {
  const params = toAnthropic({ ...rendered, cachePoints: [] }, extras);
  return 'cache_control' in params ? stripCacheControl(params) : params;
}

/** The serialized request (markers stripped) up to and including its ④ block. */
export function stablePrefix(rendered: Rendered, extras: RequestExtras = {}): string {
  const { json, ends } = serializeWithOffsets(unmarked(rendered, extras));
  const four = rendered.cachePoints.find((p) => p.labels.includes(4));
  if (!four) return '';
  return json.slice(0, ends[four.index]);
}

/**
 * Asserts that `after` extends `before` without changing any byte of its
 * stable prefix.
 *
 * @example
 * const a = render(state);
 * const b = render(appendResponse(a.state, msg));
 * assertPrefixStable(a, b);
 */
export function assertPrefixStable(before: Rendered, after: Rendered, extras: RequestExtras = {}): void {
  const prefix = stablePrefix(before, extras);
  const { json } = serializeWithOffsets(unmarked(after, extras));
  if (json.startsWith(prefix)) return;
  let i = 0;
  while (i < prefix.length && prefix[i] === json[i]) i++;
  const ctx = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 40), i + 40));
  throw new PrefixStabilityError(`prefix changed at byte ${i} of ${prefix.length}: before ${ctx(prefix)} / after ${ctx(json)}`, i);
}

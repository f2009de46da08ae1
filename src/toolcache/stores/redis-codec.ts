/**
 * Entry encoding for the Redis store. Anything that does not decode to a
 * well-formed entry for the key it was read under (corrupt JSON, a value written
 * by another program or an incompatible version) is reported as `undefined`:
 * the store deletes it and answers a miss, never serves it.
 */

import { freeze } from 'immer';
import type { StoredEntry } from '../store.js';

/** Bumped when the stored shape changes; other versions decode as failures (a miss). */
const FORMAT = 1;

export function encodeEntry(entry: StoredEntry): string {
  return JSON.stringify({ v: FORMAT, e: entry });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function validContent(v: unknown): boolean {
  if (typeof v === 'string') return true;
  return Array.isArray(v) && v.every((p) => isObject(p) && typeof p.type === 'string');
}

/** Decodes a stored value for `key`; `undefined` when it is not a valid entry for that key. */
export function decodeEntry(raw: string, key: string): StoredEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || parsed.v !== FORMAT || !isObject(parsed.e)) return undefined;
  const e = parsed.e;
  const ok =
    e.key === key &&
    typeof e.tool === 'string' &&
    typeof e.scope === 'string' &&
    validContent(e.content) &&
    isFiniteNumber(e.durationMs) &&
    isFiniteNumber(e.insertedTurn) &&
    isFiniteNumber(e.insertedAtMs) &&
    (e.ttlTurns === undefined || isFiniteNumber(e.ttlTurns)) &&
    (e.expiresAtMs === undefined || isFiniteNumber(e.expiresAtMs)) &&
    (e.ttlMs === undefined || isFiniteNumber(e.ttlMs)) &&
    (e.session === undefined || typeof e.session === 'string') &&
    Array.isArray(e.tags) &&
    e.tags.every((t) => typeof t === 'string');
  // Frozen: a hit may be shared (front tier) and callers must not change it for others.
  return ok ? freeze(e as unknown as StoredEntry, true) : undefined;
}

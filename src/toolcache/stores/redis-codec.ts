/**
 * Entry encoding for the Redis store. Anything that does not decode to a
 * well-formed entry for the key it was read under (corrupt JSON, a value written
 * by another program or an incompatible version) is reported as `undefined`:
 * the store deletes it and answers a miss, never serves it.
 *
 * Two formats, both read:
 * - 1: `{"v":1,"e":<entry>}`, one JSON text (entries whose content is a list of parts);
 * - 2: `{"v":2,"e":<entry without content>}` + `\n` + the content string, raw: a
 *   text result (the common case) is not escaped into JSON and parsed back on
 *   every hit (JSON.parse of a 3 KB result was a fifth of a Redis hit). JSON text
 *   never holds a raw newline, so the first one ends the metadata. Versions that
 *   only know format 1 read a format-2 value as undecodable and drop it (a miss,
 *   never a stale answer).
 */

import { freeze } from 'immer';
import type { StoredEntry } from '../store.js';

/** Bumped when the stored shape changes; other versions decode as failures (a miss). */
const FORMAT = 1;
/** Text content stored raw after a metadata line. */
const FORMAT_RAW_TEXT = 2;

export function encodeEntry(entry: StoredEntry): string {
  if (typeof entry.content !== 'string') return JSON.stringify({ v: FORMAT, e: entry });
  const { content, ...meta } = entry;
  return `${JSON.stringify({ v: FORMAT_RAW_TEXT, e: meta })}\n${content}`;
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
  const nl = raw.indexOf('\n');
  try {
    parsed = JSON.parse(nl === -1 ? raw : raw.slice(0, nl));
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !isObject(parsed.e)) return undefined;
  if (nl === -1 ? parsed.v !== FORMAT : parsed.v !== FORMAT_RAW_TEXT || 'content' in parsed.e) return undefined;
  const e = parsed.e;
  if (nl !== -1) e.content = raw.slice(nl + 1);
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

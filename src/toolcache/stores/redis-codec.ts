/**
 * Entry encoding for the Redis store. Anything that does not decode to a
 * well-formed entry for the key it was read under (corrupt JSON, a value written
 * by another program or an incompatible version) is reported as `undefined`:
 * the store deletes it and answers a miss, never serves it.
 *
 * Two formats written, each with the epoch the entry was inserted at (`g`, right after the version, where the
 * scripts find it: redis-scripts.ts `live`), which says whether a write to everything made it unreachable since:
 * - 3: `{"v":3,"g":<epoch>,"e":<entry>}`, one JSON text (entries whose content is a list of parts);
 * - 4: `{"v":4,"g":<epoch>,"e":<entry without content>}` + `\n` + the content string, raw: a
 *   text result (the common case) is not escaped into JSON and parsed back on
 *   every hit (JSON.parse of a 3 KB result was a fifth of a Redis hit). JSON text
 *   never holds a raw newline, so the first one ends the metadata.
 * Formats 1 and 2 (the same without `g`, written before writes to everything moved a generation) still decode,
 * as inserted at no known epoch: older than any write to everything, never served once one happened (the
 * scripts agree: a value without `g` is not live). Versions that know only those read formats 3 and 4 as
 * undecodable and drop them (a miss, never a stale answer).
 */

import { freeze } from 'immer';
import type { StoredEntry } from '../store.js';

/** Bumped when the stored shape changes; other versions decode as failures (a miss). */
const FORMAT = 3;
/** Text content stored raw after a metadata line. */
const FORMAT_RAW_TEXT = 4;
/** The formats before `g`: their entries count as inserted at {@link NO_EPOCH}. */
const OLD_FORMAT = 1;
const OLD_FORMAT_RAW_TEXT = 2;

/** The insert epoch of a value without one: below every epoch a write to everything sets. */
export const NO_EPOCH = -1;

/** `epoch`: the epoch the insert is guarded by (the namespace's epoch when it succeeds). */
export function encodeEntry(entry: StoredEntry, epoch: number): string {
  if (typeof entry.content !== 'string') return JSON.stringify({ v: FORMAT, g: epoch, e: entry });
  const { content, ...meta } = entry;
  return `${JSON.stringify({ v: FORMAT_RAW_TEXT, g: epoch, e: meta })}\n${content}`;
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
  return decodeStored(raw, key)?.entry;
}

/** A decoded value: the entry and the epoch it was inserted at ({@link NO_EPOCH} for formats 1 and 2). */
export interface Stored {
  readonly entry: StoredEntry;
  readonly epoch: number;
}

/** {@link decodeEntry} with the entry's insert epoch. */
export function decodeStored(raw: string, key: string): Stored | undefined {
  let parsed: unknown;
  const nl = raw.indexOf('\n');
  try {
    parsed = JSON.parse(nl === -1 ? raw : raw.slice(0, nl));
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !isObject(parsed.e)) return undefined;
  const v = parsed.v;
  if (nl === -1 ? v !== FORMAT && v !== OLD_FORMAT : (v !== FORMAT_RAW_TEXT && v !== OLD_FORMAT_RAW_TEXT) || 'content' in parsed.e) return undefined;
  const epoch = v === OLD_FORMAT || v === OLD_FORMAT_RAW_TEXT ? NO_EPOCH : parsed.g;
  if (!Number.isSafeInteger(epoch)) return undefined;
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
  return ok ? { entry: freeze(e as unknown as StoredEntry, true), epoch: epoch as number } : undefined;
}

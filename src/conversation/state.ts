/**
 * Conversation records as versioned JSON (`exportState` / `importState`), for
 * stores that keep text (file, Redis) and for moving a conversation between
 * processes. The previous render's memory (which cache entries the provider
 * should hold) is kept as block paths and keys and re-attached to the
 * imported blocks on the next `prepare`, so a conversation continued on
 * another process places the same cache points as it would have here.
 */
import { freeze } from 'immer';
import { ConversationStateError } from '../errors.js';
import type { ModelProfile } from '../models/profiles.js';
import { passContext } from '../render/context.js';
import { detachBlock, stableStream } from '../render/projection.js';
import type { StreamBlock } from '../render/types.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import type { CacheEntryRecord, OtherView, TimelineState } from '../timeline/types.js';
import { findBlock } from '../timeline/paths.js';
import { consumedDigest, consumedOf, digestOf, envelopeOf } from './mapping.js';
import type { ConversationRecord, CutShadow, ImportedRender } from './types.js';

// TYPES

/**
 * The format tag and the newest version this build writes and reads. A document is written at the lowest version
 * that holds it, so a worker of an older build still reads what it can: version 1, a record without a cut shadow;
 * version 2, with one (`record.cut`, see cut-shadow.ts). Both are read. Fields an older build can ignore do not
 * raise it: the other view's `superseded` and its blocks' `digest` (a compaction's view, render/projection.ts) are
 * read by an older build as the plain other view it knows.
 */
export const STATE_FORMAT = 'cachepoint.conversation';
export const STATE_VERSION = 2;

/** The JSON form of a conversation record. */
export interface ExportedConversation {
  readonly format: typeof STATE_FORMAT;
  readonly version: number;
  readonly record: Omit<ConversationRecord, 'state' | 'imported'> & {
    readonly state: Omit<TimelineState, 'lastRender'>;
    readonly lastRender?: ImportedRender;
  };
}

// IMPLEMENTATION

const envelopeKeys = new WeakMap<StreamBlock, string>();

/**
 * What identifies a stream block's bytes: timeline paths never change content,
 * only whether they are hidden; envelope blocks (tools, instructions) can change
 * under the same path, so they carry a digest. (A cut-back can put other content
 * under a timeline path: cut-shadow.ts compares payload digests before it trusts a key.)
 */
export function streamKey(b: StreamBlock): string {
  if (b.segment !== 'envelope') return b.hidden ?? '';
  let k = envelopeKeys.get(b);
  if (k === undefined) envelopeKeys.set(b, (k = digestOf(JSON.stringify(b.param))));
  return k;
}

function exportRender(state: TimelineState, imported: ImportedRender | undefined): ImportedRender | undefined {
  const lr = state.lastRender;
  if (!lr) return imported;
  return {
    stream: lr.stream.map((b) => ({ path: b.path, role: b.role, key: streamKey(b) })),
    entries: lr.entries.map((e) => ({ path: e.path, index: e.index, prefixTokens: e.prefixTokens, ttl: e.ttl, expiresAt: e.expiresAt })),
    at: lr.at,
    ...(lr.model === undefined ? {} : { model: lr.model }),
    turn: lr.turn,
    round: lr.round,
    requests: lr.requests,
    idleGaps: lr.idleGaps,
    ...(lr.tail ? { tail: lr.tail.map((b) => ({ path: b.path, param: b.param })) } : {}),
    ...(lr.stripBoundary === undefined ? {} : { stripBoundary: lr.stripBoundary }),
    // For a worker of an older build, which reads only whether the last user message held the boundary.
    ...(lr.stripBoundary !== undefined && lr.stripBoundary > lastAssistant(lr.stream) ? { thinkingStripped: true } : {}),
    ...(lr.otherView ? { otherView: exportView(lr.otherView, lr.stream) } : {}),
  };
}

/** A detached view block read back (rehydrate): the key and payload digest of the block it stands for. */
const detachedOrigin = new WeakMap<StreamBlock, { readonly key: string; readonly digest: string }>();
const payloadDigests = new WeakMap<StreamBlock, string>();

/** The digest of the bytes a stream block sends (memoized per block; a detached block's is the one it was read with). */
function payloadDigest(b: StreamBlock): string {
  const origin = detachedOrigin.get(b);
  if (origin) return origin.digest;
  let d = payloadDigests.get(b);
  if (d === undefined) payloadDigests.set(b, (d = digestOf(JSON.stringify(b.param))));
  return d;
}

/**
 * An other view (LastRender.otherView) as JSON: its stream from `from` to its last entry (before `from` it is the
 * render's). In a compaction's view, a block the render's own stream does not hold (the superseded stretch) carries
 * the digest of its payload: on import nothing stands for it, and the request that sends those bytes again is told
 * by it.
 */
function exportView(v: OtherView, own: readonly StreamBlock[]): NonNullable<ImportedRender['otherView']> {
  const end = Math.max(v.from, (v.entries.at(-1)?.index ?? -1) + 1);
  // Only a compaction's view: the blocks of a strip view are the conversation's own (re-attached by path and key).
  const held = v.superseded ? new Set<StreamBlock>(own) : undefined;
  const stream: { path: string; role: StreamBlock['role']; key: string; digest?: string }[] = [];
  for (let i = v.from; i < end; i++) {
    const b = v.stream[i]!;
    const key = detachedOrigin.get(b)?.key ?? streamKey(b);
    stream.push(!held || held.has(b) ? { path: b.path, role: b.role, key } : { path: b.path, role: b.role, key, digest: payloadDigest(b) });
  }
  return {
    from: v.from,
    stripBoundary: v.stripBoundary,
    ...(v.superseded ? { superseded: true as const } : {}),
    stream,
    entries: v.entries.map((e) => ({ path: e.path, index: e.index, prefixTokens: e.prefixTokens, ttl: e.ttl, expiresAt: e.expiresAt })),
  };
}

/** Index of a stream's last assistant block (-1: none); the scan stops there. */
function lastAssistant(stream: readonly StreamBlock[]): number {
  let k = stream.length - 1;
  while (k >= 0 && stream[k]!.role !== 'assistant') k--;
  return k;
}

/**
 * A conversation record as versioned JSON text.
 *
 * @example
 * await fs.writeFile('chat-42.json', exportState(record));
 */
export function exportState(record: ConversationRecord): string {
  const { state, imported: _imported, sentEnvelope: _sent, sentIndex: _index, envelope: _envelope, consumedCount: _count, ...rest } = record;
  const { lastRender: _lr, ...plain } = state;
  const lastRender = exportRender(state, record.imported);
  const out: ExportedConversation = {
    format: STATE_FORMAT,
    version: record.cut ? 2 : 1,
    record: {
      // First, whether it was stored or computed now (in process it is computed only when needed): the same text either way.
      envelope: envelopeOf(record),
      ...rest,
      consumed: rest.consumed.slice(0, consumedOf(record).count).map((c) => ({ digest: consumedDigest(c), mark: c.mark })),
      state: plain,
      ...(lastRender ? { lastRender } : {}),
    },
  };
  return JSON.stringify(out);
}

function corrupt(id: string, what: string, cause?: unknown): ConversationStateError {
  return new ConversationStateError(
    id,
    'corrupt',
    `stored state is damaged (${what}); delete the conversation to start it afresh`,
    cause === undefined ? undefined : { cause },
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads a record written by {@link exportState}.
 *
 * @param id the conversation the text was stored under (named in errors)
 * @throws {ConversationStateError} `newer_version` for a state written by a newer
 *   cachepoint, `corrupt` for anything unreadable: never a silent reset
 */
export function importState(text: string, id: string): ConversationRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw corrupt(id, 'not JSON', err);
  }
  if (!isObject(parsed) || parsed['format'] !== STATE_FORMAT) throw corrupt(id, `not a ${STATE_FORMAT} document`);
  const version = parsed['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) throw corrupt(id, `version ${JSON.stringify(version)}`);
  if (version > STATE_VERSION) {
    throw new ConversationStateError(
      id,
      'newer_version',
      `stored state has version ${version}, this cachepoint reads up to ${STATE_VERSION}: upgrade cachepoint on this worker (or delete the conversation)`,
    );
  }
  const r = parsed['record'];
  if (!isObject(r)) throw corrupt(id, 'no record');
  const s = r['state'];
  if (
    typeof r['id'] !== 'string' ||
    typeof r['revision'] !== 'number' ||
    !Array.isArray(r['consumed']) ||
    !isObject(r['envelope']) ||
    !isObject(r['prices']) ||
    !Array.isArray(r['requests']) ||
    !isObject(s) ||
    typeof s['model'] !== 'string' ||
    !isObject(s['envelope']) ||
    !Array.isArray(s['turns']) ||
    !isObject(s['hidden']) ||
    !Array.isArray(s['summaries'])
  ) {
    throw corrupt(id, 'missing fields');
  }
  if (!(r['consumed'] as unknown[]).every((c) => isObject(c) && typeof c['digest'] === 'string' && isObject(c['mark']))) throw corrupt(id, 'consumed messages');
  if (r['id'] !== id) throw corrupt(id, `it belongs to conversation "${String(r['id'])}"`);
  if (r['cut'] !== undefined && (version < 2 || !isCutShadow(r['cut']))) throw corrupt(id, 'cut shadow');
  if (r['incarnation'] !== undefined && (typeof r['incarnation'] !== 'string' || r['incarnation'] === '')) throw corrupt(id, 'incarnation');
  const cutMessage = r['cutMessage'];
  if (cutMessage !== undefined && !(isObject(cutMessage) && isIndex(cutMessage['at']) && typeof cutMessage['digest'] === 'string'))
    throw corrupt(id, 'cut message');
  const boundary = isObject(r['lastRender']) ? r['lastRender']['stripBoundary'] : undefined;
  if (boundary !== undefined && !isIndex(boundary)) throw corrupt(id, `strip boundary ${JSON.stringify(boundary)}`);
  const other = isObject(r['lastRender']) ? r['lastRender']['otherView'] : undefined;
  if (other !== undefined && !isOtherView(other)) throw corrupt(id, 'other view');
  const { lastRender, state, ...rest } = r as unknown as ExportedConversation['record'];
  const record: ConversationRecord = {
    ...(rest as Omit<ConversationRecord, 'state'>),
    state: freeze({ ...state, tail: state.tail ?? [], deferred: state.deferred ?? [], pruneNotice: state.pruneNotice === true }, true) as TimelineState,
    ...(lastRender ? { imported: lastRender } : {}),
  };
  return freeze(record, false);
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const everyOf = (v: unknown, ok: (x: Record<string, unknown>) => boolean): boolean => Array.isArray(v) && v.every((x) => isObject(x) && ok(x));

const isIndex = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isEntry = (e: Record<string, unknown>): boolean =>
  isString(e['path']) && isNumber(e['index']) && isNumber(e['prefixTokens']) && (e['ttl'] === '5m' || e['ttl'] === '1h') && isNumber(e['expiresAt']);

/** The shape of a stored other view (LastRender.otherView); anything else is a damaged document. */
function isOtherView(v: unknown): boolean {
  return (
    isObject(v) &&
    isIndex(v['from']) &&
    isIndex(v['stripBoundary']) &&
    (v['superseded'] === undefined || v['superseded'] === true) &&
    everyOf(v['stream'], (s) => isString(s['path']) && isString(s['role']) && isString(s['key']) && (s['digest'] === undefined || isString(s['digest']))) &&
    everyOf(v['entries'], isEntry)
  );
}

/** The shape of a stored cut shadow (cut-shadow.ts); anything else is a damaged document. */
function isCutShadow(c: unknown): c is CutShadow {
  if (!isObject(c) || !isNumber(c['count']) || !isNumber(c['from']) || !isObject(c['hidden'])) return false;
  if (c['stripBoundary'] !== undefined && !isIndex(c['stripBoundary'])) return false;
  const mark = c['mark'];
  if (!isObject(mark) || !isNumber(mark['turns']) || !isNumber(mark['rounds']) || !isNumber(mark['results'])) return false;
  if (!Object.values(c['hidden']).every((h) => isObject(h) && isString(h['path']) && isString(h['note']) && isString(h['reason']))) return false;
  return (
    everyOf(c['blocks'], (b) => isString(b['path']) && isString(b['id']) && isString(b['digest'])) &&
    everyOf(c['deferred'], (d) => isString(d['path'])) &&
    everyOf(c['stream'], (s) => isString(s['path']) && isString(s['key'])) &&
    everyOf(c['entries'], isEntry)
  );
}

/**
 * The strip boundary of an imported render: as stored, or from a record of an older build, which kept only whether
 * the request's last user message held it (then every thinking block of its stable stream was before it: its length).
 */
function stripBoundaryOf(imported: ImportedRender, length: number): { stripBoundary?: number } {
  if (imported.stripBoundary !== undefined) return { stripBoundary: imported.stripBoundary };
  return imported.thinkingStripped === true ? { stripBoundary: length } : {};
}

/**
 * A stream block standing for the thinking block at `path` of `state` (undefined when that is not a thinking block),
 * for a stream the current one no longer holds it in: its type and tokens, which validEntries skips where the API
 * had stripped it (render/projection.ts).
 */
export function thinkingPlaceholder(state: TimelineState, path: string, tokens: BlockTokenCache): StreamBlock | undefined {
  const source = findBlock(state, path);
  if (!source || (source.param.type !== 'thinking' && source.param.type !== 'redacted_thinking')) return undefined;
  return Object.freeze({
    path,
    id: path,
    role: 'assistant',
    kind: 'response',
    segment: 'timeline',
    param: source.param,
    tokens: tokens.tokens(source.param),
    markable: false,
  } as StreamBlock);
}

/** A tail block the previous request sent, as render/bind.ts compares it (role and payload). */
function sentTailBlock(d: { readonly path: string; readonly param: unknown }): StreamBlock {
  return Object.freeze({
    path: d.path,
    id: d.path,
    role: 'user',
    kind: 'tail',
    segment: 'tail',
    param: d.param as StreamBlock['param'],
    tokens: 0,
    markable: false,
  } as StreamBlock);
}

/**
 * Re-attaches an imported render memory to the imported blocks: each stream
 * position whose path and key still match gets the block the next render will
 * build (so identity diffs and the cache ledger work as if never exported);
 * anything else gets a placeholder that compares unequal.
 */
export function rehydrate(record: ConversationRecord, profile: ModelProfile, tokens: BlockTokenCache | undefined): ConversationRecord {
  const imported = record.imported;
  if (!imported) return record;
  const ctx = passContext(record.state, { profile, now: imported.at, ...(tokens ? { tokens } : {}) });
  const current = stableStream(record.state, ctx);
  const byPath = new Map(current.map((b) => [b.path, b]));
  const attach = (d: { readonly path: string; readonly role: StreamBlock['role']; readonly key: string }): StreamBlock => {
    const b = byPath.get(d.path);
    if (b && streamKey(b) === d.key) return b;
    // A thinking block the current stream no longer holds (a model that does not keep thinking, a new turn).
    const thinking = d.role === 'assistant' ? thinkingPlaceholder(record.state, d.path, ctx.tokens) : undefined;
    if (thinking) return thinking;
    return Object.freeze({
      path: d.path,
      id: d.path,
      role: d.role,
      kind: 'user',
      segment: 'timeline',
      param: { type: 'text', text: '' },
      tokens: 0,
      markable: false,
    } as StreamBlock);
  };
  const stream: StreamBlock[] = imported.stream.map(attach);
  // An entry may sit on the tail the request sent (a model that binds thinking keeps it: render/cache-points.ts).
  const sent = imported.tail?.map(sentTailBlock);
  const entries: CacheEntryRecord[] = imported.entries
    .filter((e) => e.index < stream.length + (sent?.length ?? 0))
    .map((e) => ({ ...e, block: e.index < stream.length ? stream[e.index]! : sent![e.index - stream.length]! }));
  const other = imported.otherView;
  let otherView: OtherView | undefined;
  if (other && other.from <= stream.length) {
    // A block with a digest that nothing here stands for is detached: it matches the block a later request sends
    // under its path with its key and payload (render/projection.ts), where identity cannot.
    const attachView = (d: (typeof other.stream)[number]): StreamBlock => {
      const b = attach(d);
      if (d.digest === undefined || (byPath.get(d.path) === b && b !== undefined)) return b;
      const digest = d.digest;
      detachedOrigin.set(b, { key: d.key, digest });
      return detachBlock(b, (x) => x.path === d.path && streamKey(x) === d.key && payloadDigest(x) === digest);
    };
    const view = stream.slice(0, other.from).concat(other.stream.map(attachView));
    const kept = other.entries.filter((e) => e.index < view.length).map((e) => ({ ...e, block: view[e.index]! }));
    if (kept.length > 0) {
      otherView = { from: other.from, stream: Object.freeze(view), entries: kept, stripBoundary: other.stripBoundary };
      if (other.superseded === true) otherView = { ...otherView, superseded: true };
    }
  }
  const state: TimelineState = freeze(
    {
      ...record.state,
      lastRender: {
        at: imported.at,
        ...(imported.model === undefined ? {} : { model: imported.model }),
        stream,
        entries,
        turn: imported.turn,
        round: imported.round,
        requests: imported.requests,
        idleGaps: imported.idleGaps,
        ...(sent ? { tail: sent } : {}),
        ...stripBoundaryOf(imported, stream.length),
        ...(otherView ? { otherView } : {}),
      },
    },
    false,
  );
  const { imported: _done, ...rest } = record;
  return { ...rest, state };
}

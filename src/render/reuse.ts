/**
 * The re-use model of the prune gate: how likely a later call is to need a
 * payload the gate may remove, and what that need costs when it is removed.
 *
 * Agents go back to what they read: an Edit needs the exact text of the file
 * it changes, a file still being worked on is read again, an identical command
 * is re-run. A removed payload that a later call needs is a forced recall (see
 * src/replay/recalls.ts for the rules the replay counts by): an extra round.
 * So each prune candidate carries `p`, the chance a later call needs it, and
 * the gate removes it only when the tokens saved outweigh the expected recall:
 *
 *     (1 − p) × saving  >  p × extraRound
 *
 * - `saving`: the removed tokens not read by this request and the expected
 *   remaining ones (the same figure the cost gate uses; see gate.ts).
 * - `extraRound`: the request the recall adds (it reads the prefix: context
 *   tokens × read price), the payload sent back and written (× 5m write price),
 *   the recall call's output tokens, and, for the newest text of a file,
 *   `recallPenaltyTokens` input tokens for what no bill shows (a round of
 *   latency, the risk the agent edits from the note instead of recalling). A
 *   call's result is needed again only by the same call asked again, which
 *   brings it back itself: no penalty.
 * - A recalled copy is carried like the payload would have been, so the saving
 *   is only had with probability 1 − p.
 *
 * `p` from the timeline alone (no future knowledge), per payload:
 * - the newest text of a file (a Read result, a Write's content) while that
 *   file is being worked on: `FILE_BASE + FILE_PEAK × exp(−t / FILE_DECAY)`,
 *   t = requests since the file was last read or written. An edit needs it
 *   whether or not the file was written since (edits build on each other).
 * - the newest result of a call (same tool and arguments):
 *   `KEY_PEAK × exp(−age / KEY_DECAY)` while nothing it depends on was written
 *   since (the files it names; naming none, any file: a re-run after a fix
 *   needs a fresh output, not this one); web lookups never go stale. A file
 *   read counts here too: a newer partial read of the file replaces its text
 *   as the file's newest, but the same read asked again wants this one; for a
 *   read of the whole file that is as likely as the file being worked on, so
 *   it keeps the file's figure (t as above) while the file is not written.
 * - anything superseded (an older Read of a file read again, an older run of a
 *   command run again), tool inputs, response text, errors: 0.
 *
 * The figures come from the fixtures (fixture agents go back to files at the
 * rates of real coding sessions; docs/benchmarks.md, "Economy and re-use"):
 * a file's newest text is needed later by 56 % of payloads one request after
 * the file was touched, 45 % after four, 23 % after 16, 11 % beyond; one-shot
 * lookups (Grep, Glob, a command run once) by 1–5 %, and soon never.
 */
import type { ModelProfile } from '../models/profiles.js';
import { RecentMemo } from '../internal/recent.js';
import { callTargets } from '../toolcache/targets.js';
import { sharedRounds, sharedTurns } from '../timeline/edit.js';
import { parseTimelinePath } from '../timeline/paths.js';
import type { Block, BlockPath, StreamBlock, TimelineState } from '../timeline/types.js';
import type { PassContext } from './context.js';
import { expectedRemaining } from './gate.js';
import { payloadChars } from './notes.js';
import { hiddenChanges } from './hidden-set.js';
import { type HiddenSet, hiddenSetOf } from '../timeline/hidden.js';
import { LIVE_EXTERNAL, LIVE_SIMPLE, LiveSeen } from './live-seen.js';
import { tokensOf } from './projection.js';

/** Parameters of the re-use model (the defaults are the fitted figures above). */
export const REUSE_MODEL = Object.freeze({
  FILE_BASE: 0.08,
  FILE_PEAK: 0.5,
  FILE_DECAY: 10,
  KEY_PEAK: 0.05,
  KEY_DECAY: 3,
  /** Output tokens of one recall call (`recall({"path": …})`). */
  RECALL_OUTPUT_TOKENS: 40,
});

/** How likely a later call is to need a payload, and why. */
export interface ReuseEstimate {
  /** Probability that a later call needs this payload (0 when nothing will). */
  readonly p: number;
  /** True when it is the newest text of a file (what an edit of that file needs). */
  readonly file?: boolean;
  /** What it is the newest source of, in a few words (for the plan's decisions). */
  readonly why: string;
}

const NONE: ReuseEstimate = Object.freeze({ p: 0, why: 'not the newest source of anything a later call targets' });

interface Analysis {
  readonly estimates: ReadonlyMap<BlockPath, ReuseEstimate>;
  /** Payloads that were the newest source of something and no longer are: the round (1-based, across turns) that superseded them. */
  readonly supersededAt: ReadonlyMap<BlockPath, number>;
}

/**
 * The estimates of the last few states' turns. Not a WeakMap: an Estimates holds its turns (the key), and V8's
 * scavenger keeps every WeakMap value alive whatever its key, so such an entry outlived every young-generation
 * collection and each request's turns (and an open turn's rounds array, O(session)) were promoted instead of
 * dying young (see internal/recent.ts).
 */
const memo = new RecentMemo<TimelineState['turns'], Estimates>(8);

/**
 * The estimate of every payload that is the newest source of some target
 * (paths absent from the map: p = 0). Memoized per state's turns. Computed
 * lazily: `get` weighs only the targets of the path asked (a compaction asks
 * tens of a session's thousand); iterating the map computes it whole, in the
 * same order as always (the newest-source walk's order of targets).
 */
export function reuseEstimates(state: TimelineState): ReadonlyMap<BlockPath, ReuseEstimate> {
  return analyze(state);
}

/**
 * Payloads superseded after round `afterRound` (1-based, counted across turns):
 * they were the newest source of a file's text or a call's result, a newer
 * Read, Write or run replaced them, and nothing a later call targets is in
 * them any more (p = 0). With `only`, among the paths it passes (checked first:
 * a caller that wants only visible payloads skips the weighing of the others).
 * With `minChars`, the caller wants only visible payloads of at least that
 * many characters (`only` must leave out hidden ones): what a write made stale
 * is then read from the keys that may still have one (the prune pass), and
 * `only` is told when a path was just found visible in the state's hidden set
 * (its second argument), so it need not look it up again.
 */
export function supersededAfter(
  state: TimelineState,
  afterRound: number,
  only?: (path: BlockPath, visible: boolean) => boolean,
  minChars?: number,
): ReadonlySet<BlockPath> {
  const found = supersededFound(state, afterRound, only && ((path, live) => only(path, live !== undefined)), minChars);
  // In one order whatever the walk's history (the sets above are filled in the order things happened to it).
  return new Set(found.paths.sort());
}

/** What {@link supersededFound} found: the paths, in no particular order, and the live result of each that is one. */
export interface SupersededFound {
  readonly paths: BlockPath[];
  /** Per path (same index): the live key's result it is, found visible in the state's hidden set; else undefined. */
  readonly live: (LiveResult | undefined)[];
  /** Per path (same index): the live result's slot in `seen`, when read from the slots; else -1. */
  readonly slots: number[];
  /** The walk's live keys seen visible, whose slots `slots` names (read them before the walk moves). */
  readonly seen: LiveSeen<LiveResult>;
}

/**
 * {@link supersededAfter} in no particular order, and with the live keys' results it found visible (`only` is
 * given the result instead of `true`): the prune pass sorts its candidates by their place anyway, and reads a
 * live result's place and staleness from the result instead of looking its path up again (after every write,
 * each visible result of a file-less call: a hundred per request late in a long session that keeps them).
 * With `skip`, the paths in it are left out and `only` is not asked about the live results found visible (it must
 * pass those): after a write each of them was one call of `only` and one look-up in the caller's set.
 */
export function supersededFound(
  state: TimelineState,
  afterRound: number,
  only?: (path: BlockPath, live: LiveResult | undefined) => boolean,
  minChars?: number,
  skip?: ReadonlySet<BlockPath>,
): SupersededFound {
  const w = analyze(state).walk();
  // What can have become superseded after the round: a payload replaced since, or the newest result of a call
  // key a write since made stale (the files it names; naming none, any write). Each is then checked as the whole
  // analysis would (wholeAnalysis: p = 0, and superseded at max(replaced, stale) > afterRound): the work follows
  // the rounds since, not the session.
  const maybe = new Set<BlockPath>();
  const paths: BlockPath[] = [];
  const live: (LiveResult | undefined)[] = [];
  const slots: number[] = [];
  /** Live keys' results found visible by this call that share a path with `maybe` (see `only`). */
  let visibleNow: Map<BlockPath, LiveResult> | undefined;
  const replaced = w.replacedLog;
  for (let i = replaced.length - 1; i >= 0 && replaced[i]!.at > afterRound; i--) maybe.add(replaced[i]!.path);
  if (w.anyWrite > afterRound) {
    const key = (k: string): void => {
      const src = w.newest.get(keyTarget(w, k));
      if (src) maybe.add(src.path);
    };
    const writes = w.writeLog;
    for (let i = writes.length - 1; i >= 0 && writes[i]!.at > afterRound; i--)
      for (const f of writes[i]!.files) for (const k of w.keysByFile.get(f) ?? []) key(k);
    // Every write makes the results of the keys naming no file stale. A caller that wants only visible payloads
    // of at least minChars reads them from the keys whose newest result may still be one (see Walk.liveSeen),
    // not from every such key of the session.
    if (minChars === undefined) {
      for (const k of w.filelessKeys) if (!w.external.has(k)) key(k);
    } else {
      const hidden = hiddenSetOf(state);
      const from = w.liveAgainst;
      const changed = from === undefined || w.liveMinChars !== minChars ? undefined : hiddenChanges(from, hidden);
      if (changed === undefined) {
        w.liveUnseen = new Set(w.filelessKeys);
        w.liveSeen.clear();
      }
      w.liveAgainst = hidden;
      w.liveMinChars = minChars;
      // A result seen visible against the previous set stays visible unless this set hid its path since: only what
      // changed is looked up (a miss in the hidden set reads each of its levels), and by path, not entry by entry.
      const seen = w.liveSeen;
      if (changed !== undefined) for (const p of changed) for (const k of seen.keysOf(p)) seen.delete(k);
      // Any other key is looked up. (A key is never both seen and unseen: setNewest and the roll-backs move it
      // from seen to unseen, and a new key is neither; so the new entries go after every earlier one.)
      for (const k of w.liveUnseen) {
        const src = w.filelessKeys.has(k) ? w.newest.get(keyTarget(w, k)) : undefined;
        if (src !== undefined && !hidden.has(src.path) && src.chars >= minChars) seen.set(k, liveResult(w, state, k, src));
      }
      w.liveUnseen.clear();
      // Every entry in order (a key seen visible still has that newest result: setNewest and its roll-back drop the
      // entry), read from the slots' arrays: only the paths a few look-ups single out are read otherwise. A result
      // that is only its key's newest source is superseded at the last write (see LiveResult.simple); one whose
      // path `maybe` holds already, or that is not simple, is checked with `maybe`'s paths below.
      const inMaybe = slotsIn(seen, maybe);
      const skipped = skip && skip.size > 0 ? slotsIn(seen, skip) : undefined;
      const { results, paths: slotPaths, at, flags } = seen;
      const anyWrite = w.anyWrite;
      for (let i = 0; i < results.length; i++) {
        const r = results[i];
        if (r === undefined) continue;
        const f = flags[i]!;
        if (f & LIVE_EXTERNAL) continue;
        const path = slotPaths[i]!;
        if (f & LIVE_SIMPLE && !inMaybe?.has(i)) {
          if ((skip ? !skipped?.has(i) : !only || only(path, r)) && anyWrite > at[i]!) {
            paths.push(path);
            live.push(r);
            slots.push(i);
          }
        } else {
          maybe.add(path);
          (visibleNow ??= new Map()).set(path, r);
        }
      }
    }
  }
  for (const path of maybe) {
    const r = visibleNow?.get(path);
    if (skip?.has(path)) continue;
    if (only && !only(path, r)) continue;
    const at = supersededAtOf(w, path);
    if (at !== undefined && at > afterRound) {
      paths.push(path);
      live.push(r);
      slots.push(-1);
    }
  }
  return { paths, live, slots, seen: w.liveSeen };
}

/**
 * {@link supersededAfter} read from the whole analysis (every payload the
 * session's walk knows): its definition, kept as the reference the tests
 * compare the incremental one with.
 */
export function supersededAfterScan(state: TimelineState, afterRound: number): ReadonlySet<BlockPath> {
  const out: BlockPath[] = [];
  for (const [path, at] of analyze(state).whole().supersededAt) if (at > afterRound) out.push(path);
  return new Set(out.sort());
}

/**
 * {@link supersededAfter} the round `since` rounds before the state's last (the round count read from the walk:
 * the caller counts back from the end, not from the session's start).
 */
export function supersededSince(
  state: TimelineState,
  since: number,
  only?: (path: BlockPath, visible: boolean) => boolean,
  minChars?: number,
): ReadonlySet<BlockPath> {
  return supersededAfter(state, analyze(state).walk().request - since, only, minChars);
}

/** {@link supersededFound} the round `since` rounds before the state's last (see {@link supersededSince}). */
export function supersededFoundSince(
  state: TimelineState,
  since: number,
  only?: (path: BlockPath, live: LiveResult | undefined) => boolean,
  minChars?: number,
  skip?: ReadonlySet<BlockPath>,
): SupersededFound {
  return supersededFound(state, analyze(state).walk().request - since, only, minChars, skip);
}

/** The slots of `seen` whose path `paths` holds (read path by path: `paths` is a request's few), or undefined when none. */
function slotsIn(seen: LiveSeen<LiveResult>, paths: ReadonlySet<BlockPath>): Set<number> | undefined {
  let out: Set<number> | undefined;
  for (const p of paths) {
    const s = seen.slotsOf(p);
    if (s === undefined) continue;
    out ??= new Set();
    if (typeof s === 'number') out.add(s);
    else for (const i of s) out.add(i);
  }
  return out;
}

/**
 * When `path` became superseded (the round), as {@link wholeAnalysis} has it: undefined while a later call may
 * still need it (p > 0) or when it never was the newest source of anything that was replaced or went stale.
 */
function supersededAtOf(w: Walk, path: BlockPath): number | undefined {
  let staleAt: number | undefined;
  for (const target of w.byPath.get(path) ?? []) {
    // A file's newest text is always needed with p ≥ FILE_BASE > 0; a call's result, unless stale, with
    // KEY_PEAK × exp(−(age − 1) / KEY_DECAY) (0 only once that underflows): estimateOf's figures, without its words.
    if (target.startsWith('f:')) return undefined;
    const src = w.newest.get(target)!;
    const written = staleSince(w, targetKey(w, target));
    if (written > src.at) staleAt = Math.max(staleAt ?? 0, written);
    else if (keyChance(w, targetKey(w, target), src) > 0) return undefined;
  }
  const replacedAt = w.replacedAt.get(path);
  if (replacedAt === undefined && staleAt === undefined) return undefined;
  return Math.max(replacedAt ?? 0, staleAt ?? 0);
}

/** The newest source of a target: the payload's path, the round it was made in, and the target's place in `newest` (first met). */
interface Source {
  readonly path: BlockPath;
  readonly at: number;
  readonly seq: number;
  /** Characters of the payload (what the prune rule's minChars compares). */
  readonly chars: number;
}

/**
 * Where a payload sits in a state: its turn and round as its path names them (1-based), the round, its place in
 * the round (the response's blocks, then the results), the block.
 */
export interface ResultPlace {
  readonly turn: number;
  readonly roundNo: number;
  readonly round: Round;
  readonly index: number;
  readonly block: Block;
}

/**
 * A key naming no file whose newest result was found visible (a {@link Walk.liveSeen} entry), with what the
 * prune pass reads of it after every write, found once: the walk drops the entry whenever the key's newest
 * result changes, so what is kept here stays true while the entry does.
 */
export interface LiveResult {
  readonly path: BlockPath;
  /** The round its call was made in. */
  readonly at: number;
  /** A call of a tool whose results never go stale (web lookups): never superseded by a write. */
  readonly external: boolean;
  /**
   * The result is the newest source of its key alone and never replaced as another's: when superseded, it was
   * at the last write ({@link supersededAtOf} gives `anyWrite` when that is after `at`, else undefined), and its
   * chance is 0 from then on (a stale result). It stays so: a payload gains targets only while its own round is
   * walked, and loses its key's only when that key's newest changes (which drops the entry).
   */
  readonly simple: boolean;
  /** Where it sat in the state it was found in (undefined when not found there): checked by the reader. */
  readonly place: ResultPlace | undefined;
  /**
   * Where the prune pass keeps what it made of this result (its candidate, prune-rule.ts `liveCandidate`): it is
   * found again after every write, a hundred late in a long session, and a look-up by result cost as much as the rest.
   */
  readonly memo: { candidate?: unknown; minChars?: number };
}

/** The {@link LiveResult} of key `k`, whose newest result `src` was just found visible in `state`. */
function liveResult(w: Walk, state: TimelineState, k: string, src: Source): LiveResult {
  const targets = w.byPath.get(src.path);
  const simple = targets !== undefined && targets.length === 1 && targets[0] === keyTarget(w, k) && !w.replacedAt.has(src.path);
  return Object.freeze({ path: src.path, at: src.at, external: w.external.has(k), simple, place: placeOf(state, src.path), memo: {} });
}

/** Where `path` sits in a round of `state` (the first block with it, the response's before the results), or undefined. */
function placeOf(state: TimelineState, path: BlockPath): ResultPlace | undefined {
  const loc = parseTimelinePath(path);
  const round = loc?.round === undefined ? undefined : state.turns[loc.turn - 1]?.rounds[loc.round - 1];
  if (!loc || loc.round === undefined || !round) return undefined;
  const n = round.response.length;
  for (let i = 0; i < n; i++)
    if (round.response[i]!.path === path) return Object.freeze({ turn: loc.turn, roundNo: loc.round, round, index: i, block: round.response[i]! });
  for (let i = 0; i < round.results.length; i++)
    if (round.results[i]!.path === path) return Object.freeze({ turn: loc.turn, roundNo: loc.round, round, index: n + i, block: round.results[i]! });
  return undefined;
}

/** The walk over the rounds, oldest first, that the estimates are read from (a fold: each round updates it). */
interface Walk {
  /** Newest source per target: `f:<file>` or `k:<call key>`. */
  readonly newest: Map<string, Source>;
  /** The targets whose newest source each payload is (the inverse of `newest`; lists in no particular order). */
  readonly byPath: Map<BlockPath, readonly string[]>;
  readonly replacedAt: Map<BlockPath, number>;
  readonly touched: Map<string, number>;
  /** Last write per file, and the files each call key names (a re-run of a file read is stale once the file is written). */
  readonly fileWrites: Map<string, number>;
  readonly keyFiles: Map<string, readonly string[]>;
  anyWrite: number;
  readonly pending: Map<string, { key: string; files: readonly string[]; read: boolean; external: boolean; whole: boolean; at: number }>;
  /** Recall calls in flight: tool_use id → the path they read back. */
  readonly recalls: Map<string, string>;
  readonly external: Set<string>;
  /** Call keys that read one file's whole text ({@link CallTargets.whole}): their result's chance is the file's. */
  readonly wholeReads: Set<string>;
  /**
   * What made payloads superseded, in walk order, so the payloads superseded after a round are found from the
   * rounds since (not from every payload: {@link supersededAfter}): each replacement of a target's newest source
   * (round, the path replaced), each write (round, its files), and the call keys by the files they name (keys
   * naming none apart: any write makes their results stale).
   */
  readonly replacedLog: { readonly at: number; readonly path: BlockPath }[];
  readonly writeLog: { readonly at: number; readonly files: readonly string[] }[];
  readonly keysByFile: Map<string, string[]>;
  readonly filelessKeys: Set<string>;
  /**
   * The keys naming no file whose newest result may be visible and was not seen so ({@link liveSeen}): every
   * such key but those whose result was hidden in `liveAgainst` or a set made from it (hidden-set.ts: such a set
   * only grows, so a result hidden there is hidden in it). A key goes back in whenever its newest result changes
   * (set, or taken back by a roll-back); any other hidden set starts from every key again.
   */
  liveUnseen: Set<string>;
  liveAgainst: HiddenSet | undefined;
  /**
   * The newest result of each live key found visible (and of at least liveMinChars) in `liveAgainst`: visible
   * in a set made from that one unless the set hid its path since. Always the key's newest: a key whose newest
   * result changes, or changes back in a roll-back, or stops being a file-less key, loses its entry (and is
   * looked up again). Read after every write as slots (live-seen.ts), and by path for the few paths a request
   * hides, replaces or already has.
   */
  readonly liveSeen: LiveSeen<LiveResult>;
  /** The caller's minChars when it asked for visible payloads only: a result under it is never one (retired too). */
  liveMinChars: number | undefined;
  /**
   * The results the duplicates pass compares (render/dedupe.ts), in walk order: every successful tool result by
   * its content ({@link contentKey}), and those of read calls by each file the call names (with its files).
   */
  readonly results: Map<string, Block[]>;
  readonly reads: Map<string, Block[]>;
  /**
   * Each call key's target (`k:<key>`) and back, made once (see {@link keyTarget}): not state, so never logged.
   */
  readonly targets: Map<string, string>;
  readonly keys: Map<string, string>;
  /** Roll-backs that took changes back (the lists above lose entries only then). */
  rollbacks: number;
  /** Rounds walked (1-based ordinal of the last one). */
  request: number;
  /** While walking a turn that may still get rounds: how to take each change back, in order. */
  log: (() => void)[] | undefined;
  /** Changes whenever the walk moves (estimates read lazily from it check it). */
  version: number;
}

function newWalk(): Walk {
  return {
    newest: new Map(),
    byPath: new Map(),
    replacedAt: new Map(),
    touched: new Map(),
    fileWrites: new Map(),
    keyFiles: new Map(),
    anyWrite: -1,
    pending: new Map(),
    recalls: new Map(),
    external: new Set(),
    wholeReads: new Set(),
    replacedLog: [],
    writeLog: [],
    keysByFile: new Map(),
    filelessKeys: new Set(),
    liveUnseen: new Set(),
    liveAgainst: undefined,
    liveSeen: new LiveSeen(),
    liveMinChars: undefined,
    results: new Map(),
    reads: new Map(),
    rollbacks: 0,
    targets: new Map(),
    keys: new Map(),
    request: 0,
    log: undefined,
    version: 0,
  };
}

/**
 * The target of call key `key` (`k:<key>`), the same string object every time: the superseded checks look call
 * keys up in the walk's maps on every request, and a fresh concatenation or slice is hashed anew (O(its length):
 * a key holds the call's arguments) where a string already used as a key has its hash.
 */
function keyTarget(w: Walk, key: string): string {
  let target = w.targets.get(key);
  if (target === undefined) {
    target = `k:${key}`;
    w.targets.set(key, target);
    w.keys.set(target, key);
  }
  return target;
}

/** The call key of target `k:<key>`, the same string object every time (see {@link keyTarget}). */
function targetKey(w: Walk, target: string): string {
  let key = w.keys.get(target);
  if (key === undefined) {
    key = target.slice(2);
    w.keys.set(target, key);
    w.targets.set(key, target);
  }
  return key;
}

/** map.set(key, value), logged (undone by restoring the old value, or deleting a new key: every map keeps its order). */
function put<K, V>(w: Walk, map: Map<K, V>, key: K, value: V): void {
  if (w.log) {
    if (map.has(key)) {
      const old = map.get(key) as V;
      w.log.push(() => map.set(key, old));
    } else w.log.push(() => map.delete(key));
  }
  map.set(key, value);
}

/** list.push(item), logged (undone by a pop: the lists only grow at their end). */
function pushLogged<T>(w: Walk, list: T[], item: T): void {
  list.push(item);
  if (w.log) w.log.push(() => list.pop());
}

/** map.delete(key), logged (only `pending` deletes, and its order is never read). */
function drop<K, V>(w: Walk, map: Map<K, V>, key: K): void {
  if (!map.has(key)) return;
  if (w.log) {
    const old = map.get(key) as V;
    w.log.push(() => map.set(key, old));
  }
  map.delete(key);
}

function setNewest(w: Walk, target: string, src: { path: BlockPath; at: number; chars: number }): void {
  const prev = w.newest.get(target);
  if (prev && prev.path !== src.path) {
    put(w, w.replacedAt, prev.path, w.request);
    pushLogged(w, w.replacedLog, { at: w.request, path: prev.path });
    const left = w.byPath.get(prev.path)!.filter((t) => t !== target);
    if (left.length > 0) put(w, w.byPath, prev.path, left);
    else drop(w, w.byPath, prev.path);
  }
  if (!prev || prev.path !== src.path) put(w, w.byPath, src.path, [...(w.byPath.get(src.path) ?? []), target]);
  put(w, w.newest, target, { path: src.path, at: src.at, seq: prev ? prev.seq : w.newest.size, chars: src.chars });
  // A key's newest result changed (and changes back if this is taken back): it may be visible again.
  if (target.startsWith('k:')) {
    const key = targetKey(w, target);
    w.liveUnseen.add(key);
    w.liveSeen.delete(key);
    w.log?.push(() => {
      w.liveUnseen.add(key);
      w.liveSeen.delete(key);
    });
  }
}

/** The targets whose newest source is `path`, in the order of `newest`. */
function targetsOf(w: Walk, path: BlockPath): string[] {
  const list = [...(w.byPath.get(path) ?? [])];
  return list.length > 1 ? list.sort((a, b) => w.newest.get(a)!.seq - w.newest.get(b)!.seq) : list;
}

type Turn = TimelineState['turns'][number];
type Round = Turn['rounds'][number];

/** Walks one turn's rounds. */
function walkTurn(w: Walk, turn: Turn): void {
  for (const round of turn.rounds) walkRound(w, round);
}

/** Adds a successful tool result to the duplicates' indexes (by content; by file for a read call's). */
function indexResult(w: Walk, response: readonly Block[], b: Block): void {
  const key = contentKey(b.param as { content?: unknown });
  const same = w.results.get(key);
  if (same) pushLogged(w, same, b);
  else put(w, w.results, key, [b]);
  for (const f of readFiles(response, b.id)) {
    const list = w.reads.get(f);
    if (list) pushLogged(w, list, b);
    else put(w, w.reads, f, [b]);
  }
}

const keys = new WeakMap<object, string>();

/** The text a duplicate is compared by: its content as sent (memoized per block, so a long session is not re-serialized every render). */
export function contentKey(param: { readonly content?: unknown }): string {
  let k = keys.get(param);
  if (k === undefined) {
    k = typeof param.content === 'string' ? param.content : JSON.stringify(param.content ?? null);
    keys.set(param, k);
  }
  return k;
}

/** The files a read call names, for the call whose result has id `id` (none for writes and file-less calls). */
export function readFiles(response: readonly Block[], id: string): readonly string[] {
  for (const c of response) {
    if (c.param.type !== 'tool_use' || c.param.id !== id) continue;
    const t = callTargets(c.param.name, c.param.input);
    return t.kind === 'read' ? t.files : [];
  }
  return [];
}

/**
 * The duplicates pass's indexes of a state's results (see {@link Walk.results}), in timeline order: kept with the
 * session's re-use walk, so a render reads the lists of the new results' contents and files, not every result.
 */
export function resultIndex(state: TimelineState): {
  readonly byContent: ReadonlyMap<string, readonly Block[]>;
  readonly byFile: ReadonlyMap<string, readonly Block[]>;
  /** Changes whenever a list may have lost entries (a roll-back): until then each list only grows at its end. */
  readonly rollbacks: number;
} {
  const w = analyze(state).walk();
  return { byContent: w.results, byFile: w.reads, rollbacks: w.rollbacks };
}

/** Walks one round. */
function walkRound(w: Walk, round: Turn['rounds'][number]): void {
  const { touched, fileWrites, keyFiles, pending, recalls, external, wholeReads } = w;
  if (w.log) {
    const { request, anyWrite } = w;
    w.log.push(() => {
      w.request = request;
      w.anyWrite = anyWrite;
    });
  }
  w.request += 1;
  const request = w.request;
  for (const b of round.response) {
    if (b.param.type !== 'tool_use') continue;
    if (b.param.name === 'recall') {
      const path = (b.param.input as { path?: unknown } | null)?.path;
      if (typeof path === 'string') put(w, recalls, b.id, path);
      continue;
    }
    const t = callTargets(b.param.name, b.param.input);
    for (const f of t.files) put(w, touched, f, request);
    if (t.kind === 'write') {
      if (t.files.length > 0) {
        w.anyWrite = request;
        pushLogged(w, w.writeLog, { at: request, files: t.files });
      }
      for (const f of t.files) put(w, fileWrites, f, request);
      if (t.overwrite) for (const f of t.files) setNewest(w, `f:${f}`, { path: b.path, at: request, chars: payloadChars(b.param) });
    }
    put(w, pending, b.id, { key: t.key, files: t.files, read: t.kind === 'read', external: t.external, whole: t.whole, at: request });
  }
  for (const b of round.results) {
    if (b.param.type !== 'tool_result') continue;
    if (!b.param.is_error) indexResult(w, round.response, b);
    const original = recalls.get(b.id);
    if (original !== undefined) {
      // A recalled copy is the newest source of everything the original was, and touches its files.
      if (!b.param.is_error) {
        for (const target of targetsOf(w, original)) {
          setNewest(w, target, { path: b.path, at: request, chars: payloadChars(b.param) });
          if (target.startsWith('f:')) put(w, touched, target.slice(2), request);
        }
      }
      continue;
    }
    const call = pending.get(b.id);
    drop(w, pending, b.id);
    if (!call?.read || b.param.is_error) continue;
    const src = { path: b.path, at: call.at, chars: payloadChars(b.param) };
    for (const f of call.files) setNewest(w, `f:${f}`, src);
    // The exact call too (a file read with the same arguments, e.g. a partial read, re-asks for this result).
    setNewest(w, keyTarget(w, call.key), src);
    if (!keyFiles.has(call.key)) {
      // A key names the same files every time (they come from its arguments): indexed once.
      if (call.files.length === 0) {
        w.filelessKeys.add(call.key);
        w.liveUnseen.add(call.key);
        w.log?.push(() => {
          w.filelessKeys.delete(call.key);
          w.liveSeen.delete(call.key);
        });
      }
      for (const f of call.files) {
        const keys = w.keysByFile.get(f);
        if (keys) pushLogged(w, keys, call.key);
        else put(w, w.keysByFile, f, [call.key]);
      }
    }
    put(w, keyFiles, call.key, call.files);
    if (call.external && !external.has(call.key)) {
      external.add(call.key);
      w.log?.push(() => external.delete(call.key));
    }
    if (call.whole && !wholeReads.has(call.key)) {
      wholeReads.add(call.key);
      w.log?.push(() => wholeReads.delete(call.key));
    }
  }
}

/**
 * The walk after a state's rounds, one per session (keyed by its first turn):
 * a later state whose turns start with the same turn objects continues it in
 * place instead of walking the whole session again (a walk of 2,000 rounds
 * took 20–100 ms on a long session). Its last turn, which may still get rounds
 * or be replaced (a branch), is walked logged, round by round: a later state
 * whose last turn starts with the same round objects walks only its new
 * rounds, any other takes back the rounds that differ first. Kept current on
 * every render that may compact ({@link followReuse}), a compaction then walks
 * nothing (it walked the rounds since the previous analysis at once: ~1–11 ms
 * at 4,000 requests). Any other state walks from the start and takes the slot.
 */
interface WalkAt {
  /** The turns of the state the walk is over. */
  readonly turns: TimelineState['turns'];
  /** Its complete turns (all but the last), walked for good. */
  readonly count: number;
  readonly walk: Walk;
  /** Its last turn, walked logged: how to take each of its rounds back. */
  readonly open: OpenTurn;
}

interface OpenTurn {
  turn: Turn;
  /** The changes of the rounds walked, in order, and where each round's start in it. */
  readonly undo: (() => void)[];
  readonly marks: number[];
}
const walks = new WeakMap<object, WalkAt>();

/** Takes back the open turn's rounds from round `k` (0-based) on. */
function rollBack(w: Walk, open: OpenTurn, k: number): void {
  const to = open.marks[k]!;
  if (open.undo.length > to) w.rollbacks++;
  for (let i = open.undo.length - 1; i >= to; i--) open.undo[i]!();
  open.undo.length = to;
  open.marks.length = k;
}

/** Walks rounds `from`… of `turn` on `w`, logged into `open`. */
function walkLogged(w: Walk, open: OpenTurn, turn: Turn, from: number): void {
  open.turn = turn;
  w.log = open.undo;
  try {
    for (let r = from; r < turn.rounds.length; r++) {
      open.marks.push(open.undo.length);
      walkRound(w, turn.rounds[r]!);
    }
  } finally {
    w.log = undefined;
  }
}

/** The walk over every round of the state: the session's walk, moved to this state, when the state extends it. */
function walkOf(turns: TimelineState['turns']): Walk {
  const complete = turns.length - 1;
  if (complete < 0) return newWalk();
  const key = slotKey(turns);
  const at = walks.get(key);
  if (at?.turns === turns) return at.walk;
  const fits = at !== undefined && continues(at, turns);
  // The slot is left empty while walking, so a walk that throws leaves no half-walked one.
  walks.delete(key);
  const w = fits ? at!.walk : newWalk();
  let t = fits ? at!.count : 0;
  let open: OpenTurn = { turn: turns[complete]!, undo: [], marks: [] };
  let moved = false;
  if (fits) {
    // The slot's last turn, as this state has it (same index): the rounds that are still the same objects stay walked.
    const was = at!.open;
    const now = turns[t]!;
    // The rounds still the same objects: through the appends' records in a few hops (a long tool loop's open
    // turn is not compared round by round on every request), else compared.
    const limit = Math.min(was.marks.length, now.rounds.length);
    let k = sharedRounds(now.rounds, was.turn.rounds, limit);
    // A round that only gained text after its tool results walks the same (on a model that binds thinking the fold
    // of the sent tail replaces the round before the newest on every request: rolled back, it re-walked two rounds
    // and moved the roll-back count, which drops the duplicates pass's per-list memos: dedupe.ts).
    while (k < limit && walksSame(now.rounds[k]!, was.turn.rounds[k]!)) k++;
    if (k < was.marks.length) {
      rollBack(w, was, k);
      moved = true;
    }
    if (k < now.rounds.length || was.turn !== now) moved = true;
    if (t < complete) {
      // Complete in this state: its other rounds are walked for good (the log is dropped).
      for (let r = k; r < now.rounds.length; r++) walkRound(w, now.rounds[r]!);
      t++;
    } else {
      walkLogged(w, was, now, k);
      open = was;
      t++;
    }
  }
  if (t < complete) moved = true;
  for (; t < complete; t++) walkTurn(w, turns[t]!);
  if (t === complete) {
    walkLogged(w, open, turns[complete]!, 0);
    moved = true;
  }
  if (moved) w.version++;
  walks.set(key, { turns, count: complete, walk: w, open });
  return w;
}

/**
 * The key of a session's walk slot: its first turn's user message (the block array), which every state of the
 * session shares, also while that turn is still open (a long tool loop: each append makes a new turn object,
 * never a new user message). Another state with the same key is told apart by its turns and rounds (see
 * {@link continues}), so a wrong slot costs a walk, never a wrong estimate.
 */
function slotKey(turns: TimelineState['turns']): object {
  return turns[0]!.user;
}

/**
 * Whether walking round `a` changes the walk as walking `b` does: the same response and the same tool_result blocks
 * in the same order ({@link walkRound} reads nothing else; a text block after the results is not read).
 */
export function walksSame(a: Round, b: Round): boolean {
  if (a === b) return true;
  if (a.response !== b.response) return false;
  const x = a.results;
  const y = b.results;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < x.length && x[i]!.param.type !== 'tool_result') i++;
    while (j < y.length && y[j]!.param.type !== 'tool_result') j++;
    if (i === x.length || j === y.length) return i === x.length && j === y.length;
    if (x[i] !== y[j]) return false;
    i++;
    j++;
  }
}

/** Whether `turns` continue the slot's walk: its complete turns are theirs (the same objects). */
function continues(at: WalkAt, turns: TimelineState['turns']): boolean {
  if (at.count > turns.length - 1) return false;
  // Through the appends' records (edit.ts): the walk's turns are a few edits behind, not compared turn by turn.
  return sharedTurns(turns, at.turns, at.count) === at.count;
}

/** New rounds a session's walk takes at a time between analyses (see {@link followReuse}). */
const FOLLOW_BATCH = 16;

/**
 * Keeps the session's re-use walk close to this state (see {@link WalkAt}):
 * called on every render that may compact, it walks the new rounds once
 * FOLLOW_BATCH of them are waiting (~5 µs a round in one go, about three
 * times less than one at a time), so a compaction walks at most that many
 * instead of every round since the previous analysis at once (~1–11 ms at
 * 4,000 requests). It only continues a walk this state extends (or starts one
 * at the session's second turn): a state that is not the session's next
 * (rebuilt from a store, a branch) is walked when a compaction asks, as
 * before, not on every render.
 */
export function followReuse(state: TimelineState): void {
  const turns = state.turns;
  if (turns.length < 2) return;
  const at = walks.get(slotKey(turns));
  if (!at || !continues(at, turns)) {
    if (turns.length === 2) walkOf(turns);
    return;
  }
  if (at.turns === turns) return;
  let behind = -at.open.marks.length;
  for (let t = at.count; t < turns.length && behind < FOLLOW_BATCH; t++) behind += turns[t]!.rounds.length;
  if (behind >= FOLLOW_BATCH) walkOf(turns);
}

/**
 * The estimates of one state, read from a walk positioned at it: by path on
 * demand (the targets of that path only), or whole. When the walk has moved
 * on since (the session went on, and this older state is asked again), the
 * state is walked afresh and computed whole.
 */
class Estimates implements ReadonlyMap<BlockPath, ReuseEstimate> {
  readonly #turns: TimelineState['turns'];
  #walk: Walk;
  #version: number;
  readonly #byPath = new Map<BlockPath, ReuseEstimate | undefined>();
  #whole: Analysis | undefined;

  constructor(turns: TimelineState['turns']) {
    this.#turns = turns;
    this.#walk = walkOf(turns);
    this.#version = this.#walk.version;
  }

  /** The walk this state's estimates are read from: the one it was computed on while it has not moved, else a fresh one. */
  #current(): Walk {
    if (this.#walk.version !== this.#version) {
      const w = newWalk();
      for (const t of this.#turns) walkTurn(w, t);
      // This walk is the state's own (no session moves it): later paths are read from it, not walked again.
      this.#walk = w;
      this.#version = w.version;
    }
    return this.#walk;
  }

  /** The walk positioned at this state (see {@link supersededAfter}). */
  walk(): Walk {
    return this.#current();
  }

  /** Every estimate and superseded payload (computed once). */
  whole(): Analysis {
    this.#whole ??= wholeAnalysis(this.#current());
    return this.#whole;
  }

  get(path: BlockPath): ReuseEstimate | undefined {
    if (this.#whole) return this.#whole.estimates.get(path);
    if (this.#byPath.has(path)) return this.#byPath.get(path);
    const w = this.#current();
    let best: ReuseEstimate | undefined;
    for (const target of targetsOf(w, path)) {
      const est = estimateOf(w, target, w.newest.get(target)!);
      if (!best || est.p > best.p) best = est;
    }
    this.#byPath.set(path, best);
    return best;
  }

  has(path: BlockPath): boolean {
    return this.get(path) !== undefined;
  }

  /** The `p` of {@link get}'s estimate (0 when there is none), without its words. */
  chance(path: BlockPath): number {
    if (this.#whole || this.#byPath.has(path)) return this.get(path)?.p ?? 0;
    const w = this.#current();
    let p = 0;
    for (const target of w.byPath.get(path) ?? []) p = Math.max(p, chanceOfTarget(w, target, w.newest.get(target)!));
    return p;
  }

  get size(): number {
    return this.whole().estimates.size;
  }

  forEach(fn: (value: ReuseEstimate, key: BlockPath, map: ReadonlyMap<BlockPath, ReuseEstimate>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.whole().estimates) fn.call(thisArg, v, k, this);
  }

  entries(): MapIterator<[BlockPath, ReuseEstimate]> {
    return this.whole().estimates.entries() as MapIterator<[BlockPath, ReuseEstimate]>;
  }

  keys(): MapIterator<BlockPath> {
    return this.whole().estimates.keys() as MapIterator<BlockPath>;
  }

  values(): MapIterator<ReuseEstimate> {
    return this.whole().estimates.values() as MapIterator<ReuseEstimate>;
  }

  [Symbol.iterator](): MapIterator<[BlockPath, ReuseEstimate]> {
    return this.entries();
  }
}

function analyze(state: TimelineState): Estimates {
  let hit = memo.get(state.turns);
  if (!hit) memo.set(state.turns, (hit = new Estimates(state.turns)));
  return hit;
}

/** The estimate one target gives its newest source, read from the walk. */
function estimateOf(w: Walk, target: string, src: Source): ReuseEstimate {
  const now = w.request + 1;
  if (target.startsWith('f:')) {
    const file = target.slice(2);
    const t = now - (w.touched.get(file) ?? src.at);
    return {
      p: fileChance(t),
      file: true,
      why: `newest text of ${file}, touched ${t} request${t === 1 ? '' : 's'} ago`,
    };
  }
  const key = targetKey(w, target);
  const age = now - src.at;
  const name = key.slice(0, key.indexOf('\u0000'));
  if (staleSince(w, key) > src.at) return { p: 0, why: `${name}: files were written since; a re-run needs a fresh result` };
  const file = wholeReadOf(w, key);
  if (file === undefined) return { p: keyChance(w, key, src), why: `newest result of this ${name} call, ${age} requests old` };
  const t = now - (w.touched.get(file) ?? src.at);
  return { p: fileChance(t), file: true, why: `whole text of ${file}, touched ${t} request${t === 1 ? '' : 's'} ago` };
}

/** The `p` of {@link estimateOf}, without its words. */
function chanceOfTarget(w: Walk, target: string, src: Source): number {
  if (target.startsWith('f:')) return fileChance(w.request + 1 - (w.touched.get(target.slice(2)) ?? src.at));
  const key = targetKey(w, target);
  return staleSince(w, key) > src.at ? 0 : keyChance(w, key, src);
}

/** The chance a file's newest text is needed again, `t` requests after the file was last touched. */
function fileChance(t: number): number {
  const M = REUSE_MODEL;
  return M.FILE_BASE + M.FILE_PEAK * Math.exp(-t / M.FILE_DECAY);
}

/**
 * The chance a call's newest result (not stale) is needed again: KEY_PEAK × exp(−(age − 1) / KEY_DECAY); a file's
 * whole text that a partial read of the unchanged file replaced as its newest, the file's chance (see
 * {@link wholeReadOf}).
 */
function keyChance(w: Walk, key: string, src: Source): number {
  const M = REUSE_MODEL;
  const file = wholeReadOf(w, key);
  if (file !== undefined) return fileChance(w.request + 1 - (w.touched.get(file) ?? src.at));
  const age = w.request + 1 - src.at;
  return M.KEY_PEAK * Math.exp(-(age - 1) / M.KEY_DECAY);
}

/**
 * The file whose whole text the newest result of `key` is, when the key reads one whole file; else undefined. A
 * newer partial read of the file becomes its newest text, but the whole text is still current (the caller checks
 * the file was not written since) and the whole read asked again wants it: 20–33 % of such texts were up to 64
 * requests after the file was touched, 10 % beyond (judge-0 … 449), not a one-shot lookup's 1–5 % (judge23).
 * While it is the file's newest text, the file's own target gives it the same chance.
 */
function wholeReadOf(w: Walk, key: string): string | undefined {
  return w.wholeReads.has(key) ? w.keyFiles.get(key)?.[0] : undefined;
}

/** The last write a call key's result depends on (the files it names; naming none, any file unless external), or -1. */
function staleSince(w: Walk, key: string): number {
  const files = w.keyFiles.get(key);
  if (!files || files.length === 0) return w.external.has(key) ? -1 : w.anyWrite;
  let last = -1;
  for (const f of files) last = Math.max(last, w.fileWrites.get(f) ?? -1);
  return last;
}

/** Every estimate (in the order of `newest`) and every superseded payload, from a walk. */
function wholeAnalysis(w: Walk): Analysis {
  const out = new Map<BlockPath, ReuseEstimate>();
  /** When a stale result went stale (the last write it depends on). */
  const staleAt = new Map<BlockPath, number>();
  for (const [target, src] of w.newest) {
    const est = estimateOf(w, target, src);
    if (!target.startsWith('f:')) {
      const written = staleSince(w, targetKey(w, target));
      if (written > src.at) staleAt.set(src.path, Math.max(staleAt.get(src.path) ?? 0, written));
    }
    const prev = out.get(src.path);
    if (!prev || est.p > prev.p) out.set(src.path, est);
  }
  // Superseded or stale: nothing a later call targets is in it any more (p = 0), since that round.
  const supersededAt = new Map<BlockPath, number>();
  for (const path of new Set([...w.replacedAt.keys(), ...staleAt.keys()])) {
    if ((out.get(path)?.p ?? 0) > 0) continue;
    supersededAt.set(path, Math.max(w.replacedAt.get(path) ?? 0, staleAt.get(path) ?? 0));
  }
  return { estimates: out, supersededAt };
}

/**
 * The estimate of one payload. A visible block that duplicates were pointed at
 * (render/dedupe.ts) holds their text too: it carries the highest chance among
 * itself and them.
 */
export function reuseOf(state: TimelineState, path: BlockPath): ReuseEstimate {
  const all = reuseEstimates(state);
  let est = all.get(path) ?? NONE;
  for (const dupPath of duplicatesOf(hiddenSetOf(state), path)) {
    const dup = all.get(dupPath);
    if (dup && dup.p > est.p) est = { ...dup, why: `${dup.why} (via its duplicate ${dupPath})` };
  }
  return est;
}

/**
 * The `p` of {@link reuseOf} (the highest chance among the payload's targets and its duplicates'), without making
 * the estimates' texts: the weigher asks it of every candidate, and most late in a long session have none.
 */
function chanceOf(state: TimelineState, path: BlockPath): number {
  return Math.max(analyze(state).chance(path), duplicatesChance(state, path));
}

/** The highest chance among the hidden duplicates pointed at `path` (0 when there is none). */
function duplicatesChance(state: TimelineState, path: BlockPath, index = duplicatesIndex(hiddenSetOf(state))): number {
  const dups = index.get(path);
  if (dups.length === 0) return 0;
  const e = analyze(state);
  let p = 0;
  for (const dupPath of dups) p = Math.max(p, e.chance(dupPath));
  return p;
}

/** The newest level of a {@link Duplicates} is copied on an update while it holds fewer targets than this. */
const DUP_TOP = 16;
/** A level merges into the one below it once it holds at least 1/DUP_RATIO of that level's targets. */
const DUP_RATIO = 8;
const NO_PATHS: readonly BlockPath[] = Object.freeze([]);

/**
 * The paths of the hidden blocks pointed at each path (`sameAs`), persistent: levels oldest first, each holding,
 * per target, the paths its stretch of updates added, in order (the lists of a target concatenated are its paths
 * in the hidden set's order). An update copies only the newest level while it is small, and a level merges into
 * the one below once it reaches 1/DUP_RATIO of it (hidden.ts keeps the hidden set itself the same way): a copy of
 * the whole index per update was O(duplicates) on every request that added one, most late in a long session.
 */
export class Duplicates {
  readonly #levels: readonly ReadonlyMap<BlockPath, readonly BlockPath[]>[];

  private constructor(levels: readonly ReadonlyMap<BlockPath, readonly BlockPath[]>[]) {
    this.#levels = levels;
  }

  /** The index of a whole hidden set, in its order. */
  static of(hidden: HiddenSet): Duplicates {
    const index = new Map<BlockPath, BlockPath[]>();
    for (const h of hidden.values()) {
      if (h.sameAs === undefined) continue;
      const list = index.get(h.sameAs);
      if (list) list.push(h.path);
      else index.set(h.sameAs, [h.path]);
    }
    return new Duplicates(index.size > 0 ? [index] : []);
  }

  /** The paths pointed at `path`, in the hidden set's order. */
  get(path: BlockPath): readonly BlockPath[] {
    let out: readonly BlockPath[] | undefined;
    for (const level of this.#levels) {
      const list = level.get(path);
      if (list !== undefined) out = out === undefined ? list : [...out, ...list];
    }
    return out ?? NO_PATHS;
  }

  /** The index with `added` (target, path) appended in order; this one is not changed. */
  with(added: readonly (readonly [BlockPath, BlockPath])[]): Duplicates {
    if (added.length === 0) return this;
    const levels = this.#levels.slice();
    const last = levels.at(-1);
    const top = last !== undefined && last.size < DUP_TOP ? new Map(levels.pop()) : new Map<BlockPath, readonly BlockPath[]>();
    for (const [to, path] of added) top.set(to, [...(top.get(to) ?? NO_PATHS), path]);
    levels.push(top);
    for (let n = levels.length; n >= 2 && levels[n - 1]!.size * DUP_RATIO >= levels[n - 2]!.size; n--) {
      const merged = new Map(levels[n - 2]!);
      for (const [to, list] of levels[n - 1]!) merged.set(to, [...(merged.get(to) ?? NO_PATHS), ...list]);
      levels.splice(n - 2, 2, merged);
    }
    return new Duplicates(levels);
  }
}

const duplicates = new WeakMap<HiddenSet, Duplicates>();

/** Paths of the hidden blocks pointed at `path` (`sameAs`), in the hidden map's order; indexed once per hidden map. */
export function duplicatesOf(hidden: HiddenSet, path: BlockPath): readonly BlockPath[] {
  return duplicatesIndex(hidden).get(path);
}

/** The duplicates index of a hidden set (see {@link duplicatesOf}), made once per set. */
function duplicatesIndex(hidden: HiddenSet): Duplicates {
  let index = duplicates.get(hidden) ?? derivedDuplicates(hidden);
  if (!index) duplicates.set(hidden, (index = Duplicates.of(hidden)));
  return index;
}

/**
 * The duplicates index of a set the prune pass made from one already indexed (hidden-set.ts), from the paths it
 * added: the same index when none points anywhere (most prunes), else one with them appended (added keys come
 * last in the set's order, as in the lists). Undefined when the set was not made that way, or replaced a path.
 */
function derivedDuplicates(hidden: HiddenSet, depth = 0): Duplicates | undefined {
  const from = hidden.base;
  const base = from && (duplicates.get(from) ?? (depth < 4 ? derivedDuplicates(from, depth + 1) : undefined));
  if (!from || !base) return undefined;
  const added: [BlockPath, BlockPath][] = [];
  for (const p of hidden.paths) {
    if (from.has(p)) return undefined;
    const to = hidden.get(p)!.sameAs;
    if (to !== undefined) added.push([to, p]);
  }
  const index = base.with(added);
  duplicates.set(hidden, index);
  return index;
}

/**
 * Dollars of the round a recall adds: the extra request reads the prefix
 * (`contextTokens`), sends the payload back and writes it, the recall call's
 * output tokens, and `penaltyTokens` of input for the latency and the risk.
 */
export function extraRoundPrice(profile: ModelProfile, contextTokens: number, payloadTokens: number, penaltyTokens: number): number {
  const p = profile.prices;
  return (contextTokens * p.cacheRead + payloadTokens * p.cacheWrite5m + REUSE_MODEL.RECALL_OUTPUT_TOKENS * p.output + penaltyTokens * p.input) / 1e6;
}

/**
 * The expected cost of the recalls removing a payload may force, given its
 * saving: p × (extra round + the saving lost, since the recalled copy is carried).
 */
export function expectedRecallCost(p: number, extraRound: number, saving: number): number {
  return p * (extraRound + saving);
}

/** One prune candidate weighed with the re-use model. */
export interface ReuseVerdict {
  readonly p: number;
  /** The payload is the newest text of a file (see {@link ReuseEstimate.file}). */
  readonly file: boolean;
  readonly why: string;
  /** Dollars the removal saves over the expected remaining requests. */
  readonly saving: number;
  /** p × (extra round + saving). */
  readonly expectedRecall: number;
  /** Whether it stays visible: expectedRecall ≥ saving. */
  readonly keep: boolean;
}

/**
 * Weighs candidates of one render with the re-use model: the chance each is
 * needed, the expected recall cost, and whether it stays visible because
 * (1 − p) × saving ≤ p × extra round. Undefined for a payload nothing will need
 * (p = 0) and when `prune.reuse` is off.
 *
 * @param stream the stable stream (its tokens are the prefix a recall round reads)
 */
export function reuseWeigher(
  state: TimelineState,
  stream: readonly StreamBlock[],
  ctx: PassContext,
  warm: boolean,
  remaining: number,
): (path: BlockPath, removedTokens: number, stale?: boolean) => ReuseVerdict | undefined {
  const o = ctx.options.prune;
  if (!o.reuse) return () => undefined;
  const prices = ctx.profile.prices;
  // The same figure a loop over the blocks gives (the layout's prefix sums are summed in order), without the loop.
  const context = tokensOf(stream);
  // The state's duplicates index, found once for the render's candidates (a dozen stale results a request late in a
  // long session on a model that does not bind thinking), not once per candidate.
  let index: Duplicates | undefined;
  return (path, removed, stale) => {
    // Most payloads weighed late in a long session are stale results (p = 0): their chance is read without the
    // estimate's words (see chanceOf); a result the caller knows is stale (its own chance 0: LiveResult.simple)
    // only through the duplicates pointed at it.
    if (stale) index ??= duplicatesIndex(hiddenSetOf(state));
    if ((stale ? duplicatesChance(state, path, index) : chanceOf(state, path)) <= 0) return undefined;
    const { p, why, file = false } = reuseOf(state, path);
    if (p <= 0) return undefined;
    const saving = (removed * ((warm ? prices.cacheRead : prices.cacheWrite5m) + prices.cacheRead * remaining)) / 1e6;
    // The penalty prices an edit made from the note, or the agent stopping to recall; a result whose need is the
    // same call asked again comes back with that call itself (nothing to work from, no stop): no penalty.
    const round = extraRoundPrice(ctx.profile, context, removed, file ? o.recallPenaltyTokens : 0);
    const expectedRecall = expectedRecallCost(p, round, saving);
    return { p, why, file, saving, expectedRecall, keep: expectedRecall >= saving };
  };
}

/**
 * The payloads among `paths` the re-use gate keeps visible through a free
 * prune (compaction re-writes everything after the summary anyway, so only the
 * expected recalls weigh against the tokens saved).
 */
export function keptByReuse(state: TimelineState, ctx: PassContext, stream: readonly StreamBlock[], paths: readonly BlockPath[]): Set<BlockPath> {
  const out = new Set<BlockPath>();
  if (!ctx.options.prune.reuse || paths.length === 0) return out;
  const weigh = reuseWeigher(state, stream, ctx, false, expectedRemaining(state, ctx.options.expectedRemaining));
  const byPath = new Map(stream.map((b) => [b.path, b]));
  for (const path of paths) {
    const b = byPath.get(path);
    if (b && weigh(path, b.tokens)?.keep) out.add(path);
  }
  return out;
}

/**
 * While warm, each payload is weighed once, when it leaves the keepRounds
 * window (its removal then re-writes only the newest rounds): this filter
 * passes the candidates that were inside the window at the previous render.
 * A payload gets one more weighing when it becomes superseded (a newer Read or
 * Write of its file, a newer run of its call, in the rounds added since the
 * previous render): nothing a later call targets is in it any more, so the
 * gate weighs only its saving against the re-write.
 */
export function firstChance(
  state: TimelineState,
  keepRounds: number,
  superseded: (state: TimelineState, afterRound: number) => ReadonlySet<BlockPath> = supersededAfter,
): (b: { readonly path: BlockPath }) => boolean {
  const prev = state.lastRender?.sentThrough ?? state.lastRender;
  const before: number[] = [];
  let n = 0;
  for (const t of state.turns) {
    before.push(n);
    n += t.rounds.length;
  }
  // Rounds the previous request rendered: all rounds of earlier turns, then round − 1 of its turn.
  const prevRounds = prev ? (before[prev.turn - 1] ?? n) + Math.max(0, prev.round - 1) : 0;
  const fromOrdinal = prevRounds - keepRounds + 1;
  const since = superseded(state, prevRounds);
  return (b) => {
    if (since.has(b.path)) return true;
    const loc = parseTimelinePath(b.path);
    if (!loc || loc.round === undefined) return true;
    return (before[loc.turn - 1] ?? 0) + loc.round >= fromOrdinal;
  };
}

/**
 * The hidden set behind `TimelineState.hidden`, persistent: a new state's set
 * shares all but a few small maps with the set it was made from.
 *
 * Under the economy policy most requests of a long session prune something,
 * and the set only grows: a plain object copied per update cost O(|hidden|)
 * (~250 ns a key, dictionary-mode properties) and its garbage, the largest
 * growing term of the per-request step at 5,000 requests. Here a set is a
 * stack of immutable `Map` levels, oldest first; a lookup reads them newest
 * first. An update copies only the newest level while it is small (else
 * starts a new one), and a level is merged into the one below it once it
 * reaches 1/{@link RATIO} of that level's size: a copy of the bigger one,
 * amortized O(RATIO) per path and level, the depth O(log n). Merges make new
 * maps and never write into a published one, so an older state never
 * observes a later update.
 *
 * `state.hidden` stays what it was for every reader: a frozen plain object,
 * path → record, in insertion order. On a state whose set is persistent it is
 * an accessor that builds that object on its first read (once per set, then
 * cached). The passes read the set through {@link hiddenSetOf} and never build
 * it; the states they make carry the set through {@link stateWith} instead of
 * spreading the state, which would read the accessor.
 */
import type { BlockPath, HiddenRecord, LastRender, TimelineState } from './types.js';

/** The public plain form of a hidden set. */
export type PlainHidden = TimelineState['hidden'];

type Level = ReadonlyMap<BlockPath, HiddenRecord>;

/** The newest level is copied on update while it holds fewer paths than this; else a new level starts. */
const TOP = 16;
/** A level merges into the one below it once it holds at least 1/RATIO of that level's paths. */
const RATIO = 8;

/** How many plain objects were built from persistent sets (tests assert that a step builds none). */
let materialized = 0;

/**
 * How far back the chain of {@link HiddenSet.base} reaches: the readers that
 * follow it (hidden-set.ts `hiddenChanges`, reuse.ts `derivedDuplicates`) stop
 * after 8 hops and then compare the sets whole. Without the cut a long
 * session's newest set would keep every set made before it alive (each with
 * its own copy of the small newest level): ~1.4 kB per update, 30 MB after
 * 20,000 pruning requests.
 */
export const CHAIN = 8;

/** The number of plain `hidden` objects built so far from persistent sets (a test hook). */
export function hiddenMaterializations(): number {
  return materialized;
}

const EMPTY_LEVELS: readonly Level[] = Object.freeze([]);

/**
 * A run of sets each made from the one before by {@link HiddenSet.with} (numbered from 0): bookkeeping, not state.
 * A set made from one that is not its run's newest (a branch) starts a new run that names where it left its parent's.
 * It holds no set, so it keeps none alive (as {@link CHAIN} does not).
 */
interface Lineage {
  readonly parent: Lineage | undefined;
  /** The number, in `parent`, of the set this run was made from. */
  readonly parentSeq: number;
  /** The number of the run's newest set. */
  last: number;
}

/** Runs {@link HiddenSet.descendsFrom} follows back before it answers "unknown" (a branch a request is rare). */
const LINEAGE_HOPS = 16;

/**
 * An immutable set of hidden records by path. Made only here: from a plain
 * object ({@link HiddenSet.fromPlain}) or from another set ({@link HiddenSet.with}).
 */
export class HiddenSet {
  /** The paths the update that made this set ({@link with}) added or replaced. */
  readonly paths: readonly BlockPath[];
  /** Distinct paths held. */
  readonly size: number;
  readonly #levels: readonly Level[];
  /** Cut (set to undefined) once {@link CHAIN} newer sets were made from this one's descendants. */
  #base: HiddenSet | undefined;
  #plain: PlainHidden | undefined;
  readonly #line: Lineage;
  /** This set's number in its run. */
  readonly #seq: number;
  /**
   * Every path any set made from the same root ({@link fromPlain}) has held: shared by all of them, only grows
   * (bookkeeping, not state, like {@link Lineage}). A path not in it is in none of their levels, so a look-up that
   * misses (a visible block: most of what the projection, the duplicates pass and the gate ask late in a long
   * session) reads one set instead of every level, each a cold map by then.
   */
  readonly #held: Set<BlockPath>;

  private constructor(
    levels: readonly Level[],
    size: number,
    base: HiddenSet | undefined,
    paths: readonly BlockPath[],
    plain?: PlainHidden,
    held?: Set<BlockPath>,
  ) {
    this.#levels = levels;
    this.size = size;
    this.#base = base;
    this.paths = paths;
    this.#plain = plain;
    this.#held = base !== undefined ? base.#held : (held ?? new Set());
    if (base === undefined) {
      this.#line = { parent: undefined, parentSeq: -1, last: 0 };
      this.#seq = 0;
    } else if (base.#line.last === base.#seq) {
      this.#line = base.#line;
      this.#seq = ++base.#line.last;
    } else {
      this.#line = { parent: base.#line, parentSeq: base.#seq, last: 0 };
      this.#seq = 0;
    }
  }

  /**
   * Whether this set was made from `before` by updates ({@link with}, any number of them): then it holds every
   * path `before` holds (an update adds or replaces, never removes). False when it was not, or when that is not
   * known within a few branches (the caller then compares as for an unrelated set). Unlike {@link base} it reaches
   * back past {@link CHAIN} sets; it says nothing of which paths changed.
   */
  descendsFrom(before: HiddenSet): boolean {
    if (before === this) return true;
    let line = this.#line;
    let seq = this.#seq;
    for (let hops = 0; line !== before.#line; hops++) {
      if (hops >= LINEAGE_HOPS || line.parent === undefined) return false;
      seq = line.parentSeq;
      line = line.parent;
    }
    return seq >= before.#seq;
  }

  /** The set holding a plain object's records, in its key order (the object itself is its plain form). */
  static fromPlain(plain: PlainHidden): HiddenSet {
    const level = new Map<BlockPath, HiddenRecord>();
    for (const path of Object.keys(plain)) level.set(path, plain[path]!);
    return new HiddenSet(level.size > 0 ? [level] : EMPTY_LEVELS, level.size, undefined, [], plain, new Set(level.keys()));
  }

  /**
   * The set this one was made from by {@link with}, while fewer than
   * {@link CHAIN} sets separate it from the newest made from it; else
   * undefined (a reader then compares the sets whole).
   */
  get base(): HiddenSet | undefined {
    return this.#base;
  }

  /** The record of `path`, or undefined. */
  get(path: BlockPath): HiddenRecord | undefined {
    if (!this.#held.has(path)) return undefined;
    const levels = this.#levels;
    for (let i = levels.length - 1; i >= 0; i--) {
      const r = levels[i]!.get(path);
      if (r !== undefined) return r;
    }
    return undefined;
  }

  /** Whether `path` is hidden. */
  has(path: BlockPath): boolean {
    return this.get(path) !== undefined;
  }

  /**
   * The set with `records` added (a path already held is replaced and keeps
   * its place in the order). Records are frozen. This set is not changed.
   */
  with(records: readonly HiddenRecord[]): HiddenSet {
    if (records.length === 0) return this;
    const levels = this.#levels.slice();
    const last = levels.at(-1);
    const top = last !== undefined && last.size < TOP ? new Map(levels.pop()) : new Map<BlockPath, HiddenRecord>();
    let size = this.size;
    const paths: BlockPath[] = [];
    for (const r of records) {
      if (!top.has(r.path) && this.get(r.path) === undefined) size++;
      top.set(r.path, Object.freeze(r));
      paths.push(r.path);
      this.#held.add(r.path);
    }
    levels.push(top);
    for (let n = levels.length; n >= 2 && levels[n - 1]!.size * RATIO >= levels[n - 2]!.size; n--) {
      const merged = new Map(levels[n - 2]!);
      for (const [path, r] of levels[n - 1]!) merged.set(path, r);
      levels.splice(n - 2, 2, merged);
    }
    const next = new HiddenSet(Object.freeze(levels), size, this, Object.freeze(paths));
    // Keep the chain CHAIN sets long: the set CHAIN hops back forgets its base (a set
    // only ever gains descendants, so a cut base is never needed again by a reader that
    // stops at CHAIN hops from a set made later).
    let cur: HiddenSet = next;
    for (let hops = 0; hops < CHAIN; hops++) {
      const b = cur.#base;
      if (b === undefined) return next;
      cur = b;
    }
    cur.#base = undefined;
    return next;
  }

  /** Every path once, in the plain form's order (first insertion of each path), without building it. */
  *keys(): IterableIterator<BlockPath> {
    const levels = this.#levels;
    for (let i = 0; i < levels.length; i++)
      for (const path of levels[i]!.keys()) {
        let older = false;
        for (let j = 0; j < i && !older; j++) older = levels[j]!.has(path);
        if (!older) yield path;
      }
  }

  /** Every record once, in the plain form's order, without building it. */
  *values(): IterableIterator<HiddenRecord> {
    for (const path of this.keys()) yield this.get(path)!;
  }

  /**
   * The plain form: a frozen object, path → record, keys in insertion order
   * (what copying the previous object and assigning the new records gave).
   * Built on the first call, then the same object.
   */
  plain(): PlainHidden {
    if (this.#plain !== undefined) return this.#plain;
    materialized++;
    const out: Record<BlockPath, HiddenRecord> = {};
    for (const level of this.#levels) for (const [path, r] of level) out[path] = r;
    Object.freeze(out);
    this.#plain = out;
    byPlain.set(out, this);
    return out;
  }
}

/** The persistent set of each state made with one (its `hidden` is the accessor). */
const byState = new WeakMap<object, HiddenSet>();
/** The set made from (or materialized as) each plain object, so it is made once. */
const byPlain = new WeakMap<object, HiddenSet>();

/**
 * The hidden set of a state, read without building `state.hidden` when the
 * state carries a persistent one. A state whose `hidden` is a plain object
 * (created, imported, edited with immer) gets a set made from it once (the
 * object is assumed unchanged, like every part of a state).
 */
export function hiddenSetOf(state: TimelineState): HiddenSet {
  const set = byState.get(state);
  if (set !== undefined) return set;
  const plain = state.hidden;
  let made = byPlain.get(plain);
  if (made === undefined) {
    made = HiddenSet.fromPlain(plain);
    byPlain.set(plain, made);
  }
  return made;
}

/**
 * The accessor `state.hidden` is on a state with a persistent set: one
 * function for every such state, finding the set by the state it is read on.
 * One function, not one per set: V8 shares an object layout between objects
 * only while their accessors are the same functions, and a layout per set
 * left each state a slow dictionary-mode object (~2 µs to make, most of an
 * append's extra cost on a pruned session).
 */
function hiddenOfState(this: object): PlainHidden {
  // A state inherited from (Object.create(state)) reads its prototype's set.
  for (let o: object | null = this; o !== null; o = Object.getPrototypeOf(o)) {
    const set = byState.get(o);
    if (set !== undefined) return set.plain();
  }
  throw new TypeError('state.hidden: this accessor was copied off its state (copy a state with a spread, which copies the value)');
}

/** The property `hidden` of such a state (one frozen descriptor: defineProperty reads it afresh each time). */
const HIDDEN_ACCESSOR: PropertyDescriptor = Object.freeze({ get: hiddenOfState, enumerable: true });

/** The keys of a state in the order createTimeline and the appends give them (`lastRender`, the render's, last). */
const ORDER = ['model', 'envelope', 'turns', 'tail', 'hidden', 'summaries', 'deferred', 'pruneNotice', 'lastRender'] as const;

/** Whether `keys` are {@link ORDER}, with or without its last key. */
function inOrder(keys: readonly string[]): boolean {
  const n = keys.length;
  if (n !== ORDER.length && n !== ORDER.length - 1) return false;
  for (let i = 0; i < n; i++) if (keys[i] !== ORDER[i]) return false;
  return true;
}

type Patch = { readonly [K in keyof TimelineState]?: TimelineState[K] };

/**
 * A new frozen state: `state`'s keys in its order, with `patch`'s values where
 * given (keys `state` lacks come last, in `patch`'s order), and the hidden set
 * `hidden` (default: `state`'s) carried without building its plain form —
 * what `Object.freeze({ ...state, ...patch })` gave, but the spread would read
 * `state.hidden`.
 */
export function stateWith(state: TimelineState, patch: Patch, hidden?: HiddenSet): TimelineState {
  const set = hidden ?? byState.get(state);
  const keys = Object.keys(state);
  // The usual shape (every state the library makes): a literal of the known keys, the same order a copy gives.
  if (inOrder(keys)) {
    const next = standardWith(state, patch, keys.length === ORDER.length, set);
    if (next !== undefined) return next;
  }
  const next: Record<string, unknown> = {};
  const p = patch as Record<string, unknown>;
  const s = state as unknown as Record<string, unknown>;
  for (const key of keys) {
    if (key === 'hidden' && set !== undefined) Object.defineProperty(next, 'hidden', HIDDEN_ACCESSOR);
    else next[key] = Object.hasOwn(p, key) ? p[key] : s[key];
  }
  for (const key of Object.keys(p)) if (!Object.hasOwn(next, key)) next[key] = p[key];
  if (set !== undefined) byState.set(next, set);
  return Object.freeze(next) as unknown as TimelineState;
}

/**
 * {@link stateWith} for a state whose keys are {@link ORDER} (`last`: with
 * `lastRender`), as a literal; undefined when the patch holds a key outside
 * {@link ORDER} (the generic copy places it).
 */
function standardWith(state: TimelineState, patch: Patch, last: boolean, set: HiddenSet | undefined): TimelineState | undefined {
  let { model, envelope, turns, tail, summaries, deferred, pruneNotice } = state;
  let lastRender = last ? state.lastRender : undefined;
  let withLast = last;
  for (const key of Object.keys(patch)) {
    switch (key) {
      case 'model':
        model = patch.model!;
        break;
      case 'envelope':
        envelope = patch.envelope!;
        break;
      case 'turns':
        turns = patch.turns!;
        break;
      case 'tail':
        tail = patch.tail!;
        break;
      case 'summaries':
        summaries = patch.summaries!;
        break;
      case 'deferred':
        deferred = patch.deferred!;
        break;
      case 'pruneNotice':
        pruneNotice = patch.pruneNotice!;
        break;
      case 'lastRender':
        lastRender = patch.lastRender;
        withLast = true;
        break;
      default:
        // 'hidden' (the set is passed apart) or a key outside the state's type.
        return undefined;
    }
  }
  if (set === undefined) {
    const hidden = state.hidden;
    return Object.freeze(
      withLast
        ? { model, envelope, turns, tail, hidden, summaries, deferred, pruneNotice, lastRender }
        : { model, envelope, turns, tail, hidden, summaries, deferred, pruneNotice },
    ) as TimelineState;
  }
  // The accessor goes in place, then the rest in order: one object layout for every such state (see hiddenOfState).
  const next: { -readonly [K in keyof TimelineState]?: TimelineState[K] } = { model, envelope, turns, tail };
  Object.defineProperty(next, 'hidden', HIDDEN_ACCESSOR);
  next.summaries = summaries;
  next.deferred = deferred;
  next.pruneNotice = pruneNotice;
  if (withLast) next.lastRender = lastRender as LastRender;
  byState.set(next, set);
  return Object.freeze(next) as TimelineState;
}

/** Whether the state carries a persistent set (its `hidden` is the accessor: reading it builds the plain form). */
export function hasPersistentHidden(state: TimelineState): boolean {
  return byState.has(state);
}

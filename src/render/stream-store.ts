/**
 * Where the stable streams of a session keep their blocks and their layout's
 * two columns (lookback positions, cumulative tokens): one store, written in
 * place by each build (projection.ts), so a build costs what it changes, not
 * the session's length.
 *
 * A build that appends to the newest one writes past it. A build that differs
 * from the newest below its length (a prune or hide in the newest rounds, a
 * branch) writes from its first change on, after saving what it overwrites
 * (up to the newest length) in the store's current epoch, which then ends.
 * A build keeps the epoch it was made in: while that epoch is current its
 * blocks are the store's; after, each index reads from the oldest later epoch
 * that saved it, else from the store (below every later change). An economy
 * prune changes the newest rounds, so what it saves is a few blocks; before,
 * each such prune copied the whole stream and both columns (past 16,383
 * blocks, V8 large objects on fresh pages, and the collector's work after).
 *
 * Older builds stay readable byte for byte: read one block through
 * {@link blockAt}, or whole through {@link materializeBlocks} /
 * {@link materializeColumns} (once, kept by the caller). Epochs point only to
 * newer ones, so an epoch (and what it saved) lives as long as a build made in
 * it is kept.
 */
import type { StreamBlock } from '../timeline/types.js';

/** A stretch of a store's life in which builds only appended. */
export interface Epoch {
  /** Set when it ended: the next epoch, the first index rewritten, and what the store held from there. */
  next?: Epoch;
  at?: number;
  saved?: Saved;
}

/** The store's blocks and columns from an epoch's end `at` to the newest length then. */
interface Saved {
  readonly blocks: readonly StreamBlock[];
  readonly positions: Int32Array;
  readonly prefix: Float64Array;
}

/** The shared arrays. Columns have spare capacity (grown by half); `blocks` is exactly the newest build's length. */
export interface Store {
  readonly blocks: StreamBlock[];
  positions: Int32Array;
  prefix: Float64Array;
  /** The newest build's length. */
  used: number;
  /** The current epoch. */
  epoch: Epoch;
}

/** What a build holds of a store: the epoch it was made in and its length. */
export interface Version {
  readonly store: Store;
  readonly epoch: Epoch;
  readonly length: number;
}

/** Column capacity for `n` blocks (room to append before the next copy). */
export function capacity(n: number): number {
  return Math.max(256, Math.ceil(n * 1.5));
}

/** A store holding `blocks` (kept, not copied), with empty columns of room for them. */
export function newStore(blocks: StreamBlock[]): Store {
  const n = capacity(blocks.length);
  return { blocks, positions: new Int32Array(n), prefix: new Float64Array(n), used: 0, epoch: {} };
}

/** Whether no later build rewrote the store below this version's length (its epoch is current). */
export function isIntact(v: Version): boolean {
  return v.epoch.next === undefined;
}

/** The length below which the store still holds this version's blocks and columns. */
export function intactBelow(v: Version): number {
  let n = v.length;
  for (let e = v.epoch; e.next; e = e.next) if (e.at! < n) n = e.at!;
  return n;
}

/** Block `i` (below its length) of a version. */
export function blockAt(v: Version, i: number): StreamBlock {
  for (let e = v.epoch; e.next; e = e.next) if (i >= e.at!) return e.saved!.blocks[i - e.at!]!;
  return v.store.blocks[i]!;
}

/** Calls `fill(saved, at, from, to)` for each stretch [from, to) of a version that a later epoch saved, and returns where the store's own part ends. */
function stretches(v: Version, fill: (saved: Saved, at: number, from: number, to: number) => void): number {
  const intact = intactBelow(v);
  let hi = v.length;
  // The oldest epoch that saved an index holds its value: each later one only fills below the one before.
  for (let e = v.epoch; e.next && hi > intact; e = e.next) {
    const at = e.at!;
    if (at < hi) fill(e.saved!, at, Math.max(at, intact), hi);
    if (at < hi) hi = at;
  }
  return intact;
}

/** A version's blocks as an array of their own. */
export function materializeBlocks(v: Version): StreamBlock[] {
  const out = v.store.blocks.slice(0, intactBelow(v));
  out.length = v.length;
  stretches(v, (saved, at, from, to) => {
    for (let i = from; i < to; i++) out[i] = saved.blocks[i - at]!;
  });
  return out;
}

/** A version's columns as arrays of their own (exactly its length). */
export function materializeColumns(v: Version): { positions: Int32Array; prefix: Float64Array } {
  const positions = new Int32Array(v.length);
  const prefix = new Float64Array(v.length);
  const intact = stretches(v, (saved, at, from, to) => {
    positions.set(saved.positions.subarray(from - at, to - at), from);
    prefix.set(saved.prefix.subarray(from - at, to - at), from);
  });
  positions.set(v.store.positions.subarray(0, intact));
  prefix.set(v.store.prefix.subarray(0, intact));
  return { positions, prefix };
}

/**
 * Makes the store ready for a build of `n` blocks that writes from `from` on
 * (the store must hold the build's blocks and columns below `from`: see
 * {@link intactBelow}). Below the newest length, the current epoch ends first,
 * saving what the build will overwrite. The columns grow when `n` exceeds
 * their room. The caller then writes blocks and columns from `from`, and sets
 * `used` (and the blocks' length) to `n`.
 */
export function prepareWrite(store: Store, from: number, n: number): void {
  if (from < store.used) {
    const next: Epoch = {};
    const ended = store.epoch;
    ended.saved = Object.freeze({
      blocks: store.blocks.slice(from, store.used),
      positions: store.positions.slice(from, store.used),
      prefix: store.prefix.slice(from, store.used),
    });
    ended.at = from;
    ended.next = next;
    store.epoch = next;
  }
  if (n > store.positions.length) {
    const positions = new Int32Array(capacity(n));
    const prefix = new Float64Array(capacity(n));
    positions.set(store.positions.subarray(0, from));
    prefix.set(store.prefix.subarray(0, from));
    store.positions = positions;
    store.prefix = prefix;
  }
}

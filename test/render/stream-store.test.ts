/**
 * The stream store (src/render/stream-store.ts): builds write one shared set of arrays in place, a build that
 * differs below the newest length saving what it overwrites, and every build, however old, reads back exactly the
 * blocks and columns it wrote. Random sequences of builds from random earlier builds (appends, rewrites near the
 * end and near the start, truncations, a branch from a build whose epoch ended), each version compared after every
 * build with the plain arrays it was built as.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blockAt,
  intactBelow,
  isIntact,
  materializeBlocks,
  materializeColumns,
  newStore,
  prepareWrite,
  type Store,
  type Version,
} from '../../src/render/stream-store.js';
import type { StreamBlock } from '../../src/timeline/types.js';

/** A build as the projection makes one: the plain arrays (the definition) and its version of the store. */
interface Built {
  readonly blocks: readonly StreamBlock[];
  readonly positions: readonly number[];
  readonly prefix: readonly number[];
  readonly version: Version;
}

let made = 0;
const block = (): StreamBlock => ({ path: `b/${++made}` }) as unknown as StreamBlock;

/** Writes the build of `want` (its arrays) from `base`, as projection.ts does: in place from `change` when the store still holds base there, else a new store. */
function build(base: Built | undefined, keep: number, add: number, rand: () => number): Built {
  const kept = base ? Math.min(keep, base.blocks.length) : 0;
  const blocks = [...(base?.blocks.slice(0, kept) ?? [])];
  for (let i = 0; i < add; i++) blocks.push(block());
  const positions = [...(base?.positions.slice(0, kept) ?? [])];
  const prefix = [...(base?.prefix.slice(0, kept) ?? [])];
  for (let i = kept; i < blocks.length; i++) {
    positions.push((positions.at(-1) ?? -1) + (rand() < 0.3 ? 0 : 1));
    prefix.push((prefix.at(-1) ?? 0) + Math.floor(rand() * 500));
  }
  let store: Store;
  if (base && kept <= intactBelow(base.version)) {
    store = base.version.store;
    prepareWrite(store, kept, blocks.length);
  } else {
    store = newStore(blocks.slice(0, kept));
    prepareWrite(store, kept, blocks.length);
    store.positions.set(positions.slice(0, kept));
    store.prefix.set(prefix.slice(0, kept));
  }
  for (let i = kept; i < blocks.length; i++) {
    store.blocks[i] = blocks[i]!;
    store.positions[i] = positions[i]!;
    store.prefix[i] = prefix[i]!;
  }
  store.blocks.length = blocks.length;
  store.used = blocks.length;
  return { blocks, positions, prefix, version: { store, epoch: store.epoch, length: blocks.length } };
}

/** Every version reads back exactly what it was built as, block by block and whole. */
function check(all: readonly Built[]): void {
  for (const b of all) {
    const v = b.version;
    const blocks: StreamBlock[] = [];
    for (let i = 0; i < v.length; i++) blocks.push(blockAt(v, i));
    expect(blocks).toEqual(b.blocks);
    expect(materializeBlocks(v)).toEqual(b.blocks);
    const columns = materializeColumns(v);
    expect([...columns.positions]).toEqual(b.positions);
    expect([...columns.prefix]).toEqual(b.prefix);
    if (isIntact(v)) {
      expect(v.store.blocks.slice(0, v.length)).toEqual(b.blocks);
      expect([...v.store.prefix.subarray(0, v.length)]).toEqual(b.prefix);
    }
  }
}

type Op = { from: number; kind: 'append' | 'near-end' | 'near-start' | 'truncate' | 'same'; n: number };

function replay(ops: readonly Op[], seed: number): Set<string> {
  let x = seed;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const seen = new Set<string>();
  const all: Built[] = [build(undefined, 0, 40, rand)];
  for (const op of ops) {
    // Mostly the newest build (a session going on), sometimes any earlier one (a retry, a branch).
    const base = op.from % 3 === 0 ? all[op.from % all.length]! : all.at(-1)!;
    const len = base.blocks.length;
    const keep =
      op.kind === 'append' || op.kind === 'same'
        ? len
        : op.kind === 'near-end'
          ? Math.max(0, len - 1 - (op.n % 6))
          : op.kind === 'near-start'
            ? op.n % 4
            : Math.max(0, len - 1 - (op.n % 3));
    const add = op.kind === 'truncate' || op.kind === 'same' ? 0 : 1 + (op.n % 9);
    const intact = isIntact(base.version);
    const inPlace = keep <= intactBelow(base.version);
    seen.add(`${intact ? 'intact' : 'ended'} ${inPlace ? 'in place' : 'new store'}${keep < base.version.store.used ? ' rewrite' : ''}`);
    all.push(build(base, keep, add, rand));
    check(all);
  }
  return seen;
}

describe('the stream store', () => {
  it('gives every build, old and new, exactly the blocks and columns it wrote (random builds from random earlier builds)', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            from: fc.nat(50),
            kind: fc.constantFrom<Op['kind']>('append', 'append', 'near-end', 'near-end', 'near-start', 'truncate', 'same'),
            n: fc.nat(20),
          }),
          { minLength: 5, maxLength: 40 },
        ),
        fc.nat(1_000_000),
        (ops, seed) => {
          for (const s of replay(ops, seed)) seen.add(s);
        },
      ),
      { numRuns: 60, seed: 20261201 },
    );
    // The kinds of write the property went through (so the coverage never depends on the seed alone).
    expect([...seen].sort()).toEqual(expect.arrayContaining(['intact in place', 'intact in place rewrite', 'ended in place rewrite', 'ended new store']));
  });

  it('keeps what an ended epoch saved apart from the newer ones: a build two rewrites back', () => {
    let x = 7;
    const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const a = build(undefined, 0, 10, rand);
    const b = build(a, 8, 4, rand); // rewrites from 8: a's epoch ends, saving a's 8..10
    const c = build(b, 5, 1, rand); // rewrites from 5 (truncates): b's epoch ends, saving b's 5..12
    const d = build(c, 6, 6, rand); // appends to c
    expect(intactBelow(a.version)).toBe(5);
    expect(intactBelow(b.version)).toBe(5);
    expect(isIntact(c.version) && isIntact(d.version)).toBe(true);
    check([a, b, c, d]);
  });
});

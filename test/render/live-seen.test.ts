/**
 * The re-use walk's live keys seen visible (render/live-seen.ts): a map from key to entry that the prune pass reads
 * as dense arrays and by path. Its invariant: whatever the sequence of sets, deletes and clears, it is the Map it
 * stands for (the same entries in the same order: a key set again keeps its place, one deleted and set again goes
 * last), its slot arrays hold exactly those entries in that order (with holes for removed ones), and the slots by
 * path are exactly the held slots with that path; also across the packing of removed slots.
 */
import { describe, expect, it } from 'vitest';
import { LIVE_EXTERNAL, LIVE_SIMPLE, type LiveEntry, LiveSeen } from '../../src/render/live-seen.js';
import { Rng } from '../../src/synthetic/rng.js';

function check(seen: LiveSeen<LiveEntry>, model: Map<string, LiveEntry>): void {
  expect(seen.size).toBe(model.size);
  expect([...seen]).toEqual([...model]);
  const slots: number[] = [];
  for (let i = 0; i < seen.slots; i++) {
    const r = seen.results[i];
    if (r === undefined) continue;
    slots.push(i);
    expect(seen.paths[i]).toBe(r.path);
    expect(seen.at[i]).toBe(r.at);
    expect(seen.flags[i]).toBe((r.external ? LIVE_EXTERNAL : 0) | (r.simple ? LIVE_SIMPLE : 0));
  }
  // The held slots, in order, are the Map's entries.
  expect(slots.map((i) => seen.results[i])).toEqual([...model.values()]);
  // By path: exactly the held slots with that path, ascending, and their keys.
  const byPath = new Map<string, number[]>();
  for (const i of slots) byPath.set(seen.paths[i]!, [...(byPath.get(seen.paths[i]!) ?? []), i]);
  for (const path of new Set([...byPath.keys(), 'p/none', ...[...model.values()].map((r) => r.path)])) {
    const want = byPath.get(path);
    const got = seen.slotsOf(path);
    expect(got === undefined ? undefined : typeof got === 'number' ? [got] : [...got]).toEqual(want);
    const keys = [...model].filter(([, r]) => r.path === path).map(([k]) => k);
    expect(seen.keysOf(path).sort()).toEqual(keys.sort());
  }
}

describe('LiveSeen stays the Map it stands for, and its slots and paths in step with it', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`random sets, deletes and clears (seed ${seed})`, () => {
      const rng = new Rng(seed);
      const next = (): number => rng.next();
      const seen = new LiveSeen<LiveEntry>();
      const model = new Map<string, LiveEntry>();
      // Few paths for many keys: some paths held by several keys at once (a recalled copy is newest of several).
      const keys = 60;
      const paths = 25;
      let packed = 0;
      let slots = 0;
      for (let step = 0; step < 3_000; step++) {
        const k = `key${Math.floor(next() * keys)}`;
        const op = next();
        if (op < 0.5) {
          const r: LiveEntry = { path: `p/${Math.floor(next() * paths)}`, at: Math.floor(next() * 100), external: next() < 0.2, simple: next() < 0.7 };
          seen.set(k, r);
          model.set(k, r);
        } else if (op < 0.995) {
          expect(seen.delete(k)).toBe(model.delete(k));
        } else {
          seen.clear();
          model.clear();
        }
        // Fewer slots without a clear: the removed ones were packed away.
        if (op < 0.995 && seen.slots < slots) packed++;
        slots = seen.slots;
        expect(seen.has(k)).toBe(model.has(k));
        expect(seen.get(k)).toBe(model.get(k));
        if (step % 7 === 0) check(seen, model);
      }
      check(seen, model);
      expect(packed).toBeGreaterThan(0);
    });
  }

  it('packs removed slots away once they are most of them, keeping the order', () => {
    const seen = new LiveSeen<LiveEntry>();
    const model = new Map<string, LiveEntry>();
    for (let i = 0; i < 100; i++) {
      const r = { path: `p/${i % 10}`, at: i, external: false, simple: true };
      seen.set(`k${i}`, r);
      model.set(`k${i}`, r);
    }
    for (let i = 0; i < 100; i += 3) {
      seen.delete(`k${i}`);
      model.delete(`k${i}`);
    }
    check(seen, model);
    expect(seen.slots).toBe(100);
    for (let i = 1; i < 100; i += 3) {
      seen.delete(`k${i}`);
      model.delete(`k${i}`);
    }
    // Past half of the 100 slots removed: packed (the holes made after that stay until the next packing).
    expect(seen.slots).toBeLessThan(100);
    expect(seen.slots - seen.size).toBeLessThan(32);
    check(seen, model);
    // A key set again keeps its place; deleted and set again, it goes last.
    seen.set('k2', { path: 'p/x', at: 1, external: true, simple: false });
    model.set('k2', { path: 'p/x', at: 1, external: true, simple: false });
    seen.delete('k5');
    model.delete('k5');
    seen.set('k5', { path: 'p/2', at: 7, external: false, simple: true });
    model.set('k5', { path: 'p/2', at: 7, external: false, simple: true });
    check(seen, model);
  });
});

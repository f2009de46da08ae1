/**
 * The persistent hidden set (src/timeline/hidden.ts) against its definition:
 * a plain object, path → record, copied and assigned per update (what
 * `state.hidden` was). Random update sequences with a fixed seed, branching
 * (an update of an older version, as a forked session or a re-rendered state
 * makes), batches small and large (so levels are copied, started and merged):
 * every version, old and new, reads exactly its own definition afterwards
 * (no version observes a later update), in the same key order, and its plain
 * form is that object. And the states made on the render path carry the set
 * without building its plain form.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { hiddenChanges, withHidden } from '../../src/render/hidden-set.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { Rng } from '../../src/synthetic/rng.js';
import { appendResponse, createTimeline, startTurn } from '../../src/timeline/edit.js';
import { CHAIN, HiddenSet, hiddenMaterializations, hiddenSetOf, stateWith } from '../../src/timeline/hidden.js';
import type { HiddenRecord, TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { applyEvent } from '../helpers/trace-events.js';

/** The definition: a copy of the plain object with the records assigned. */
function plainWith(plain: Readonly<Record<string, HiddenRecord>>, records: readonly HiddenRecord[]): Record<string, HiddenRecord> {
  const out: Record<string, HiddenRecord> = { ...plain };
  for (const r of records) out[r.path] = r;
  return out;
}

/** Where the reads of `set` differ from the definition `plain` (over `pool`, paths held or not); empty when none. */
function differences(set: HiddenSet, plain: Readonly<Record<string, HiddenRecord>>, pool: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of pool) {
    if (set.get(path) !== plain[path]) out.push(`get ${path}`);
    if (set.has(path) !== Object.hasOwn(plain, path)) out.push(`has ${path}`);
  }
  const keys = Object.keys(plain);
  if (set.size !== keys.length) out.push(`size ${set.size} != ${keys.length}`);
  const got = [...set.keys()];
  if (got.join('\n') !== keys.join('\n')) out.push('keys (order)');
  const values = [...set.values()];
  if (values.length !== keys.length || values.some((v, i) => v !== plain[keys[i]!])) out.push('values');
  return out;
}

/** Every read of `set` equals the definition. */
function same(set: HiddenSet, plain: Readonly<Record<string, HiddenRecord>>, pool: readonly string[]): void {
  expect(differences(set, plain, pool)).toEqual([]);
}

describe('HiddenSet equals the plain-object definition', () => {
  it('on random update sequences with branching (fixed seed), every version keeps reading its own definition', () => {
    const rng = new Rng('hidden-set-20261201');
    const pool = Array.from({ length: 900 }, (_, i) => `turns/${1 + (i % 60)}/rounds/${1 + Math.floor(i / 60)}/results/toolu_${i}`);
    const versions: { set: HiddenSet; plain: Record<string, HiddenRecord>; paths: string[] }[] = [
      { set: HiddenSet.fromPlain(Object.freeze({})), plain: {}, paths: [] },
    ];
    let serial = 0;
    const seen = { replaced: 0, branched: 0, large: 0 };
    for (let step = 0; step < 700; step++) {
      // Mostly the newest version (a session going on), sometimes an older one (a fork, a re-render).
      const from = rng.chance(0.8) ? versions.length - 1 : Math.max(0, versions.length - 1 - rng.int(1, 40));
      if (from !== versions.length - 1) seen.branched++;
      const base = versions[from]!;
      const size = rng.chance(0.05) ? rng.int(20, 120) : rng.int(0, 4);
      if (size >= 20) seen.large++;
      const records: HiddenRecord[] = [];
      for (let k = 0; k < size; k++) {
        // A path already held sometimes (replaced: keeps its place), else one of the pool.
        const held = Object.keys(base.plain);
        const path = held.length > 0 && rng.chance(0.1) ? held[rng.int(0, held.length - 1)]! : pool[rng.int(0, pool.length - 1)]!;
        if (Object.hasOwn(base.plain, path)) seen.replaced++;
        records.push({ path, reason: 'prune', note: `[pruned: ${serial++}]`, chars: serial });
      }
      const set = base.set.with(records);
      const plain = plainWith(base.plain, records);
      versions.push({ set, plain, paths: records.map((r) => r.path) });
      // The update's change record: made from `base`, the paths it added or replaced.
      if (records.length > 0) {
        expect(set.base).toBe(base.set);
        expect([...set.paths]).toEqual(records.map((r) => r.path));
        expect(hiddenChanges(base.set, set)).toEqual(records.map((r) => r.path));
      } else expect(set).toBe(base.set);
      same(set, plain, pool);
      // Every earlier version still reads its own definition (checked on a sample each step, all at the end).
      const old = versions[rng.int(0, versions.length - 1)]!;
      same(old.set, old.plain, pool);
    }
    for (const v of versions) same(v.set, v.plain, pool);
    // The plain form: the definition's keys in its order, the same records, frozen, built once.
    for (const v of versions.filter((_, i) => i % 25 === 0)) {
      const plain = v.set.plain();
      expect(Object.isFrozen(plain)).toBe(true);
      expect(Object.keys(plain)).toEqual(Object.keys(v.plain));
      for (const k of Object.keys(plain)) expect(plain[k]).toBe(v.plain[k]);
      expect(v.set.plain()).toBe(plain);
      expect(JSON.stringify(plain)).toBe(JSON.stringify(v.plain));
    }
    // The sequences covered what they are for.
    expect(seen.replaced).toBeGreaterThan(20);
    expect(seen.branched).toBeGreaterThan(50);
    expect(seen.large).toBeGreaterThan(10);
    expect(versions.at(-1)!.set.size).toBeGreaterThan(300);
  });

  it('the chain of bases is cut CHAIN sets back, so a long session does not keep every earlier set alive', () => {
    let set = HiddenSet.fromPlain(Object.freeze({}));
    const line: HiddenSet[] = [set];
    for (let i = 0; i < 40; i++) {
      set = set.with([{ path: `turns/${i}/rounds/1/results/t${i}`, reason: 'prune', note: `n${i}`, chars: i }]);
      line.push(set);
    }
    // From the newest: CHAIN bases, then none (before the cut the walk reached the first set, 40 hops).
    let hops = 0;
    for (let cur = set.base; cur !== undefined; cur = cur.base) hops++;
    expect(hops).toBe(CHAIN);
    // The readers that follow the chain still find an update up to CHAIN sets back, and fall back past it.
    const back = line.at(-1 - CHAIN)!;
    expect(hiddenChanges(back, set)).toEqual(
      line
        .slice(-CHAIN)
        .map((s) => s.paths[0])
        .reverse(),
    );
    expect(hiddenChanges(line.at(-2 - CHAIN)!, set)).toBeUndefined();
    // Every set still reads all its records (the cut drops only the change record).
    for (let i = 0; i < line.length; i++) expect(line[i]!.size).toBe(i);
    expect(line[3]!.get('turns/2/rounds/1/results/t2')?.note).toBe('n2');
    expect(line[3]!.base).toBeUndefined();
  });

  it('descendsFrom: true exactly for the sets a set was made from (past CHAIN, across branches), never for a sibling or a later set', () => {
    const rng = new Rng('hidden-set-descends-20261202');
    // Each version, the index of the version it was made from (-1: a root).
    const sets: HiddenSet[] = [HiddenSet.fromPlain(Object.freeze({}))];
    const parent: number[] = [-1];
    let branches = 0;
    for (let step = 0; step < 300; step++) {
      const newest = rng.chance(0.9);
      const from = newest ? sets.length - 1 : rng.int(0, sets.length - 1);
      if (!newest) branches++;
      // Every 60th a new root (a state made from a plain object: no relation to the others).
      const set =
        step % 60 === 59
          ? HiddenSet.fromPlain(Object.freeze({}))
          : sets[from]!.with([{ path: `turns/1/rounds/${step}/results/t${step}`, reason: 'prune', note: `n${step}`, chars: step }]);
      sets.push(set);
      parent.push(step % 60 === 59 ? -1 : from);
    }
    const ancestors = (i: number): Set<number> => {
      const out = new Set<number>();
      for (let a = i; a >= 0; a = parent[a]!) out.add(a);
      return out;
    };
    let far = 0;
    for (let i = 0; i < sets.length; i += 3) {
      const up = ancestors(i);
      for (let j = 0; j < sets.length; j++) {
        const got = sets[i]!.descendsFrom(sets[j]!);
        // Never claims a set it was not made from (a sibling, a later set, another root's).
        if (!up.has(j)) expect(got, `${i} from ${j}`).toBe(false);
        else {
          // Its ancestors, all of them here (few branches between any two): also those past the CHAIN cut.
          expect(got, `${i} from ${j}`).toBe(true);
          if ([...up].indexOf(j) > CHAIN) far++;
        }
      }
    }
    expect(branches).toBeGreaterThan(15);
    expect(far).toBeGreaterThan(100);
    // A set made from an older one than its run's newest starts a branch: its sibling chain is not its ancestry.
    const root = HiddenSet.fromPlain(Object.freeze({}));
    const a = root.with([{ path: 'a', reason: 'prune', note: 'a', chars: 1 }]);
    const a2 = a.with([{ path: 'a2', reason: 'prune', note: 'a2', chars: 1 }]);
    const b = a.with([{ path: 'b', reason: 'prune', note: 'b', chars: 1 }]);
    expect(b.descendsFrom(a)).toBe(true);
    expect(b.descendsFrom(root)).toBe(true);
    expect(b.descendsFrom(a2)).toBe(false);
    expect(a2.descendsFrom(b)).toBe(false);
    expect(a.descendsFrom(b)).toBe(false);
  });

  it('a set made from a plain object keeps that object as its plain form and its order', () => {
    const plain = Object.freeze({
      'turns/2/rounds/1/results/b': { path: 'turns/2/rounds/1/results/b', reason: 'prune', note: 'b', chars: 1 },
      'turns/1/rounds/1/results/a': { path: 'turns/1/rounds/1/results/a', reason: 'agent', note: 'a', chars: 2 },
    } satisfies Record<string, HiddenRecord>);
    const set = HiddenSet.fromPlain(plain);
    expect(set.plain()).toBe(plain);
    expect([...set.keys()]).toEqual(Object.keys(plain));
    const next = set.with([{ path: 'turns/1/rounds/1/results/a', reason: 'prune', note: 'a2', chars: 3 }]);
    expect(Object.keys(next.plain())).toEqual(Object.keys(plain));
    expect(next.plain()['turns/1/rounds/1/results/a']!.note).toBe('a2');
    expect(plain['turns/1/rounds/1/results/a'].note).toBe('a');
  });

  it('a set made from a plain object, and the sets made from it, read each of its paths (a miss is answered without the levels only for a path none of them held)', () => {
    const plain = Object.freeze({
      'turns/2/rounds/1/results/b': { path: 'turns/2/rounds/1/results/b', reason: 'prune', note: 'b', chars: 1 },
      'turns/1/rounds/1/results/a': { path: 'turns/1/rounds/1/results/a', reason: 'agent', note: 'a', chars: 2 },
    } satisfies Record<string, HiddenRecord>);
    const pool = [...Object.keys(plain), 'turns/3/rounds/1/results/c', 'turns/1/rounds/2/results/d'];
    const set = HiddenSet.fromPlain(plain);
    same(set, plain, pool);
    const c: HiddenRecord = { path: 'turns/3/rounds/1/results/c', reason: 'prune', note: 'c', chars: 4 };
    same(set.with([c]), plainWith(plain, [c]), pool);
    // A sibling made from the same set later: c was held by the other branch only.
    const d: HiddenRecord = { path: 'turns/1/rounds/2/results/d', reason: 'economy', note: 'd', chars: 5 };
    same(set.with([d]), plainWith(plain, [d]), pool);
    same(set, plain, pool);
  });
});

describe('states carry the persistent set', () => {
  const envelope = { instructions: ['sys'], tools: [], model: 'claude-sonnet-4-6' };

  it('withHidden: the new state reads as the spread definition; the old state does not change; key order and JSON as before', () => {
    let state = startTurn(createTimeline(envelope), 'hello', 0);
    const states: TimelineState[] = [state];
    const plains: Record<string, HiddenRecord>[] = [{}];
    for (let i = 0; i < 60; i++) {
      const records: HiddenRecord[] = [{ path: `turns/1/rounds/${i + 1}/results/t${i}`, reason: 'prune', note: `n${i}`, chars: i }];
      state = withHidden(state, records, i % 7 === 0 ? [] : undefined);
      states.push(state);
      plains.push(plainWith(plains.at(-1)!, records));
    }
    for (let i = 0; i < states.length; i++) {
      const s = states[i]!;
      expect(Object.isFrozen(s)).toBe(true);
      expect(Object.keys(s)).toEqual(Object.keys(states[0]!));
      expect(s.hidden).toEqual(plains[i]);
      expect(Object.keys(s.hidden)).toEqual(Object.keys(plains[i]!));
      expect(Object.isFrozen(s.hidden)).toBe(true);
      expect(s.hidden).toBe(s.hidden);
      // What the spread of a plain state gives, byte for byte.
      expect(JSON.stringify(s)).toBe(JSON.stringify({ ...states[0]!, hidden: plains[i], deferred: s.deferred }));
    }
    // A copy of the state (stateWith) shares the set and its plain form.
    const copy = stateWith(state, { tail: [] });
    expect(hiddenSetOf(copy)).toBe(hiddenSetOf(state));
    expect(copy.hidden).toBe(state.hidden);
    // A spread copy (what a caller outside does) holds the plain form; its set is the same one.
    expect(hiddenSetOf({ ...state })).toBe(hiddenSetOf(state));
  });

  it('an economy session renders, appends and prunes without building the plain hidden set', () => {
    const model = 'claude-sonnet-4-6';
    const events = generateTrace({ seed: 'hidden-set-no-plain', profile: 'coding', requests: 160, tail: true, hides: false, model });
    const options: Omit<RenderOptions, 'now'> = {
      profile: { ...resolveProfile(model), contextWindow: 1_000_000 },
      compact: { enabled: false },
      policy: 'economy',
      tokens: new BlockTokenCache(),
    };
    let state: TimelineState | undefined;
    let now = 0;
    let requests = 0;
    let before = -1;
    const at = { model, options: { ...options, now: 0 }, now: 0, shift: 0, seen: new Set<string>() };
    for (const e of events) {
      if (e.type === 'assistant') {
        const r = render(state!, { ...options, now });
        toAnthropic(r);
        state = appendResponse(r.state, e.content, e.at);
        // After the one-time prune notice (an immer edit of the state, once per session).
        if (++requests === 40) before = hiddenMaterializations();
        continue;
      }
      state = applyEvent(state, e, { ...at, now });
      if ('at' in e && typeof e.at === 'number') now = e.at;
    }
    expect(requests).toBeGreaterThan(100);
    expect(hiddenSetOf(state!).size).toBeGreaterThan(20);
    expect(hiddenMaterializations()).toBe(before);
    // Reading it builds it once.
    expect(Object.keys(state!.hidden).length).toBe(hiddenSetOf(state!).size);
    expect(hiddenMaterializations()).toBe(before + 1);
  });
});

describe('stateWith', () => {
  const envelope = { instructions: ['sys'], tools: [], model: 'claude-sonnet-4-6' };
  const record = (i: number): HiddenRecord => ({ path: `turns/1/rounds/${i}/results/t${i}`, reason: 'prune', note: `n${i}`, chars: i });

  it('gives every state with a persistent set the same accessor, whatever its set (one object layout)', () => {
    const start = startTurn(createTimeline(envelope), 'hello', 0);
    const a = withHidden(start, [record(1)]);
    const b = withHidden(a, [record(2)]);
    const c = stateWith(b, { tail: [] });
    const getters = [a, b, c].map((s) => Object.getOwnPropertyDescriptor(s, 'hidden')?.get);
    expect(typeof getters[0]).toBe('function');
    expect(new Set(getters).size).toBe(1);
    // Each still reads its own set.
    expect(Object.keys(a.hidden)).toEqual([record(1).path]);
    expect(Object.keys(b.hidden)).toEqual([record(1).path, record(2).path]);
    expect(c.hidden).toBe(b.hidden);
    // Keys in the state's order, lastRender added last, frozen.
    const d = stateWith(b, { lastRender: { at: 1 } as TimelineState['lastRender'] & object });
    expect(Object.keys(d)).toEqual([...Object.keys(b), 'lastRender']);
    expect(Object.isFrozen(d)).toBe(true);
  });

  it('keeps the key order of a state made elsewhere, and places a key outside the state type last', () => {
    const start = startTurn(createTimeline(envelope), 'hello', 0);
    const s = start as unknown as Record<string, unknown>;
    // An imported state with its keys in another order.
    const shuffled = Object.freeze(
      Object.fromEntries(
        Object.keys(start)
          .reverse()
          .map((k) => [k, s[k]]),
      ),
    ) as unknown as TimelineState;
    for (const from of [shuffled, withHidden(shuffled, [record(1)])]) {
      const next = stateWith(from, { tail: [] });
      expect(Object.keys(next)).toEqual(Object.keys(from));
      expect(next.tail).toEqual([]);
      expect(next.turns).toBe(from.turns);
      expect(next.hidden).toBe(from.hidden);
    }
    const extra = stateWith(start, { tail: [], extra: 1 } as never);
    expect(Object.keys(extra)).toEqual([...Object.keys(start), 'extra']);
    const extraSet = stateWith(withHidden(start, [record(1)]), { extra: 1 } as never);
    expect(Object.keys(extraSet)).toEqual([...Object.keys(start), 'extra']);
    expect(Object.keys(extraSet.hidden)).toEqual([record(1).path]);
  });

  it('reads the set of a state inherited from; an accessor copied off its state is a TypeError, not another set', () => {
    const state = withHidden(startTurn(createTimeline(envelope), 'hello', 0), [record(1)]);
    expect(Object.keys((Object.create(state) as TimelineState).hidden)).toEqual([record(1).path]);
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(state)) as TimelineState;
    expect(() => copy.hidden).toThrow(TypeError);
  });
});

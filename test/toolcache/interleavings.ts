/**
 * A deterministic exploration of interleavings for the tool cache's staleness promise.
 *
 * Every actor (a tool call on one of the fleet's caches, a turn/clock tick, an armed store fault, a Redis restart)
 * runs under a scheduler that lets exactly one actor move at a time: an actor runs until its next scheduling point
 * (a tool step, or just before and just after every store operation), then the scheduler waits until everything the
 * step started has settled (store round trips included) and picks the next parked actor with a seeded PRNG. A fixed
 * seed gives a fixed sequence of choices; real I/O only decides how long a step takes, not the order of steps.
 *
 * The oracle. Staleness: no read returns, for any path, a version older than the last write to that path that
 * completed before the read started (on the writer's own cache), or, on another cache of the fleet, that completed
 * before the read started and whose mark (`beginWrite`, stores that have it) or invalidation had reached the store
 * (a write that reached the store neither before nor after its run is, by design, known only to its own cache until
 * a retry gets through; docs/tool-cache.md "When the store fails"). TTL: no hit serves a run whose age
 * at the read's start had reached the tool's TTL (turns or seconds, on the injected clock).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { fileTag } from '../../src/toolcache/policy.js';
import type { FlightCoordinator, StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';

// PRNG

/** mulberry32: a small seeded PRNG (deterministic across runs and platforms). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// SCHEDULER

interface Parked {
  readonly label: string;
  readonly release: () => void;
}

/** Lets one actor move at a time; see the module comment. */
export class Scheduler {
  readonly trace: string[] = [];
  readonly #parked: Parked[] = [];
  readonly #io = new Set<Promise<void>>();
  #activity = 0;

  constructor(readonly random: () => number) {}

  /** A scheduling point: resolves when the scheduler picks this actor. */
  point(label: string): Promise<void> {
    this.#activity += 1;
    return new Promise((release) => this.#parked.push({ label, release }));
  }

  /** Marks real I/O the current step waits for: the scheduler picks nobody until it settled. */
  io<T>(p: Promise<T>): Promise<T> {
    this.#activity += 1;
    const settled: Promise<void> = p.then(
      () => undefined,
      () => undefined,
    );
    const tracked = settled.finally(() => {
      this.#io.delete(tracked);
      this.#activity += 1;
    });
    this.#io.add(tracked);
    return p;
  }

  async #quiesce(): Promise<void> {
    for (;;) {
      const before = this.#activity;
      if (this.#io.size > 0) await Promise.all([...this.#io]);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      if (before === this.#activity && this.#io.size === 0) return;
    }
  }

  /** Runs the actors to completion; returns their errors (an actor's own assertion failures land here). */
  async run(actors: ReadonlyArray<() => Promise<void>>): Promise<unknown[]> {
    const errors: unknown[] = [];
    let done = 0;
    const running = actors.map(async (a) => {
      try {
        await a();
      } catch (e) {
        errors.push(e);
      } finally {
        done += 1;
        this.#activity += 1;
      }
    });
    for (;;) {
      await this.#quiesce();
      if (this.#parked.length === 0) break;
      const i = Math.floor(this.random() * this.#parked.length);
      const [next] = this.#parked.splice(i, 1) as [Parked];
      this.trace.push(next.label);
      next.release();
    }
    if (done < actors.length) errors.push(new Error(`deadlock: ${actors.length - done} actor(s) blocked with nothing parked`));
    await Promise.race([Promise.all(running), new Promise((r) => setTimeout(r, 0))]);
    return errors;
  }
}

// THE FLEET'S STORES, SCHEDULED

/** The actor a store call runs for (AsyncLocalStorage: joiners and owners may resume in one step). */
interface ActorContext {
  readonly replica: number;
  /** The tags of the invalidations that reached the store during this actor's call. */
  readonly invalidated: Set<string>;
  /** The tags of the write marks (beginWrite) that reached the store during this actor's call. */
  readonly marked: Set<string>;
}

const actorOf = new AsyncLocalStorage<ActorContext>();

export type StoreMethod = 'epoch' | 'get' | 'insertIfEpoch' | 'invalidate' | 'delete' | 'acquire' | 'release' | 'wait' | 'beginWrite' | 'endWrite';

/** An armed fault: the next call of `method` on that replica throws, `before` reaching the store or `after` it answered. */
export interface Fault {
  readonly method: StoreMethod;
  readonly when: 'before' | 'after';
}

export interface ScheduledStoreHooks {
  /** Called after an invalidation through this store succeeded, with its tags. */
  onInvalidated(tags: readonly string[]): void;
  /** Whether the flight lock of `key` is held (to tell "owner gone" from "still running" between polls). */
  lockHeld?(key: string): Promise<boolean>;
}

/** Wraps a store so each operation is a scheduling point before and after it, and armed faults fire. */
export function scheduledStore(s: Scheduler, inner: ToolCacheStore, name: string, faults: Fault[], hooks: ScheduledStoreHooks): ToolCacheStore {
  const op = async <T>(method: StoreMethod, f: () => Promise<T>): Promise<T> => {
    await s.point(`${name}.${method}`);
    const i = faults.findIndex((x) => x.method === method);
    const fault = i === -1 ? undefined : faults.splice(i, 1)[0];
    if (fault?.when === 'before') throw new Error(`${name}.${method}: injected fault before the store`);
    const v = await s.io(f());
    await s.point(`${name}.${method} answered`);
    if (fault?.when === 'after') throw new Error(`${name}.${method}: injected fault after the store answered`);
    return v;
  };
  const store: ToolCacheStore = {
    epoch: () => op('epoch', () => inner.epoch()),
    get: (k) => op('get', () => inner.get(k)),
    insertIfEpoch: (e: StoredEntry, ep) => op('insertIfEpoch', () => inner.insertIfEpoch(e, ep)),
    invalidate: async (tags, writes) => {
      const out = await op('invalidate', () => inner.invalidate(tags, writes));
      const ctx = actorOf.getStore();
      if (ctx !== undefined) for (const t of tags) ctx.invalidated.add(t);
      hooks.onInvalidated(tags);
      return out;
    },
    delete: (k) => op('delete', () => inner.delete(k)),
  };
  const begin = inner.beginWrite?.bind(inner);
  const end = inner.endWrite?.bind(inner);
  if (begin !== undefined) {
    store.beginWrite = (tags, token) =>
      op('beginWrite', async () => {
        const out = await begin(tags, token);
        // Reached the store, even if an armed fault then fails the call.
        for (const t of tags) actorOf.getStore()?.marked.add(t);
        return out;
      });
  }
  if (end !== undefined) store.endWrite = (tags, token) => op('endWrite', () => end(tags, token));
  const flight = inner.flight;
  if (flight === undefined) return store;
  const lockHeld = hooks.lockHeld;
  if (lockHeld === undefined) throw new Error('a store with a flight needs hooks.lockHeld');
  const scheduledFlight: FlightCoordinator = {
    acquire: (k, token, ttl) => op('acquire', () => flight.acquire(k, token, ttl)),
    release: (k, token) => op('release', () => flight.release(k, token)),
    // The real wait polls on its own clock; here every poll is a scheduling point, so the owner can move meanwhile.
    async wait(k) {
      for (let polls = 0; polls < 40; polls++) {
        const e = await op('wait', () => flight.wait(k, 0));
        if (e !== undefined) return e;
        if (!(await s.io(lockHeld(k)))) return undefined;
      }
      return undefined;
    },
  };
  return { ...store, flight: scheduledFlight };
}

// SCENARIOS

export type OpKind = 'read' | 'glob' | 'stat' | 'write' | 'failwrite' | 'errwrite' | 'tick' | 'fault' | 'restart';

export interface Op {
  readonly kind: OpKind;
  readonly replica: number;
  readonly path: string;
  /** tick: turns and ms to advance; fault: which. */
  readonly turns?: number;
  readonly ms?: number;
  readonly fault?: Fault;
  /** Scheduling points the actor idles at before it starts (so later actors often start after earlier ones ended). */
  readonly delay: number;
}

const PATHS = ['a', 'b', 'c'] as const;
/** Paths calls are drawn from: mostly `a`, so calls meet. */
const DRAWN_PATHS = ['a', 'a', 'a', 'b', 'c'] as const;
const READ_TTL_TURNS = 3;
const STAT_TTL_SECONDS = 60;
const METHODS: readonly StoreMethod[] = [
  'epoch',
  'get',
  'insertIfEpoch',
  'invalidate',
  'invalidate',
  'delete',
  'acquire',
  'release',
  'wait',
  'beginWrite',
  'endWrite',
];

/** A scenario of `n` ops on `replicas` caches, drawn from `random`. `restarts`: whether a Redis restart may be drawn. */
export function drawScenario(random: () => number, n: number, replicas: number, restarts = false): Op[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const kinds: OpKind[] = ['read', 'read', 'read', 'read', 'glob', 'stat', 'stat', 'write', 'write', 'write', 'failwrite', 'errwrite', 'tick', 'tick', 'fault'];
  const ops: Op[] = [];
  let restarted = false;
  for (let i = 0; i < n; i++) {
    let kind = pick(kinds);
    if (restarts && !restarted && random() < 0.08) {
      kind = 'restart';
      restarted = true;
    }
    const replica = Math.floor(random() * replicas);
    const path = pick(DRAWN_PATHS);
    const delay = Math.floor(random() * 24);
    if (kind === 'tick') ops.push({ kind, replica, path, delay, turns: Math.floor(random() * 3), ms: Math.floor(random() * 90_000) });
    else if (kind === 'fault') ops.push({ kind, replica, path, delay, fault: { method: pick(METHODS), when: random() < 0.5 ? 'before' : 'after' } });
    else ops.push({ kind, replica, path, delay });
  }
  return ops;
}

/** What the fleet is made of for one scenario. */
export interface Fleet {
  /** One store per replica, already wrapped by {@link scheduledStore} (or the memory store itself, unwrapped). */
  readonly stores: readonly ToolCacheStore[];
  /** Stops and starts the shared server (Redis only); resolves when every replica can use it again. */
  restart?(s: Scheduler): Promise<void>;
}

export interface Outcome {
  readonly violations: string[];
  readonly errors: unknown[];
  readonly counts: Record<string, number>;
  readonly trace: readonly string[];
}

interface RunRecord {
  readonly turn: number;
  readonly ms: number;
}

interface WriteRecord {
  readonly replica: number;
  readonly path: string;
  readonly version: number;
  readonly end: number;
  /** When its invalidation reached the store (for the other replicas); Infinity while it has not. */
  effective: number;
  readonly tags: readonly string[];
}

/**
 * Runs one scenario: builds a ToolCache per store (one session, one turn clock and one wall clock for the fleet),
 * runs the ops as concurrent actors under `s`, and checks every answer against the oracle.
 */
export async function runScenario(
  s: Scheduler,
  ops: readonly Op[],
  makeFleet: (s: Scheduler, faults: Fault[][], onInvalidated: (replica: number, tags: readonly string[]) => void) => Promise<Fleet>,
  replicas: number,
): Promise<Outcome> {
  let tick = 0;
  let clockMs = 1_700_000_000_000;
  const files = new Map<string, number>(PATHS.map((p) => [p, 0]));
  let version = 0;
  const runs = new Map<string, RunRecord>();
  let runCount = 0;
  const writes: WriteRecord[] = [];
  const violations: string[] = [];
  const counts: Record<string, number> = {};
  const count = (k: string): void => {
    counts[k] = (counts[k] ?? 0) + 1;
  };
  const faults: Fault[][] = Array.from({ length: replicas }, () => []);

  const onInvalidated = (replica: number, tags: readonly string[]): void => {
    const at = ++tick;
    for (const w of writes) if (w.replica === replica && w.effective === Number.POSITIVE_INFINITY && w.tags.every((t) => tags.includes(t))) w.effective = at;
  };
  const fleet = await makeFleet(s, faults, onInvalidated);
  const caches = fleet.stores.map((store) => {
    const cache = new ToolCache({ store, session: 'fleet', now: () => clockMs, flightTimeoutMs: 30_000 });
    cache.register('Read', { cacheable: true, ttl: { turns: READ_TTL_TURNS }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
    cache.register('Glob', { cacheable: true, ttl: { turns: READ_TTL_TURNS }, reads: ['file:*'] });
    cache.register('Stat', { cacheable: true, ttl: { seconds: STAT_TTL_SECONDS }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
    cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
    return cache;
  });

  /** A run's content is as fresh as the moment it read the files: recorded then. */
  const readNow = (id: string): void => {
    runs.set(id, { turn: caches[0]!.turn, ms: clockMs });
  };
  const startRun = (): string => `r${++runCount}`;
  const tools = {
    Read: async ({ path }: { path: string }) => {
      const id = startRun();
      await s.point(`Read ${path}: before reading`);
      readNow(id);
      const v = files.get(path)!;
      await s.point(`Read ${path}: read v${v}`);
      return `${path}@${v}#${id}`;
    },
    Stat: async ({ path }: { path: string }) => {
      const id = startRun();
      await s.point(`Stat ${path}: before reading`);
      readNow(id);
      const v = files.get(path)!;
      return `${path}@${v}#${id}`;
    },
    Glob: async () => {
      const id = startRun();
      await s.point('Glob: before reading');
      readNow(id);
      const all = PATHS.map((p) => `${p}@${files.get(p)}`).join(',');
      await s.point('Glob: read');
      return `${all}#${id}`;
    },
    Edit: async ({ path }: { path: string }) => {
      await s.point(`Edit ${path}: before writing`);
      const v = ++version;
      files.set(path, v);
      await s.point(`Edit ${path}: wrote v${v}`);
      return `wrote ${path}@${v}`;
    },
    Fail: async ({ path }: { path: string }) => {
      await s.point(`failing Edit ${path}`);
      throw new Error('disk full');
    },
    ErrResult: async ({ path }: { path: string }) => {
      await s.point(`Edit ${path} answering is_error`);
      return { content: 'permission denied', isError: true };
    },
  };

  const check = (op: Op, i: number, start: number, startTurn: number, startMs: number, r: ToolCallResult): void => {
    count(`${op.kind}:${r.cache.type}`);
    const text = String(unmark(r.content));
    const [body, runId] = text.split('#') as [string, string];
    for (const part of body.split(',')) {
      const [p, v] = part.split('@') as [string, string];
      const mustSee = Math.max(
        0,
        ...writes.filter((w) => w.path === p && (w.replica === op.replica ? w.end < start : w.effective < start)).map((w) => w.version),
      );
      if (Number(v) < mustSee)
        violations.push(
          `#${i} ${op.kind}(${op.path}) on replica ${op.replica} [${r.cache.type}] returned ${p}@${v}, but v${mustSee} was written before it started`,
        );
    }
    const run = runs.get(runId);
    if (run === undefined) {
      violations.push(`#${i}: unknown run ${runId}`);
      return;
    }
    if (r.cache.type !== 'hit' && r.cache.type !== 'shared') return;
    const ageTurns = startTurn - run.turn;
    const ageMs = startMs - run.ms;
    const expired = op.kind === 'stat' ? ageMs >= STAT_TTL_SECONDS * 1000 : ageTurns >= READ_TTL_TURNS;
    if (expired)
      violations.push(
        `#${i} ${op.kind}(${op.path}) on replica ${op.replica} [${r.cache.type}] served ${runId}, aged ${ageTurns} turn(s) / ${ageMs} ms at its start`,
      );
  };

  const actors = ops.map((op, i) => async () => {
    const ctx: ActorContext = { replica: op.replica, invalidated: new Set(), marked: new Set() };
    await actorOf.run(ctx, async () => {
      for (let d = 0; d < op.delay; d++) await s.point(`#${i} idle`);
      await s.point(`start #${i} ${op.kind} ${op.path} on ${op.replica}`);
      const cache = caches[op.replica]!;
      const callId = `toolu_${i}`;
      const start = ++tick;
      const startTurn = cache.turn;
      const startMs = clockMs;
      switch (op.kind) {
        case 'tick': {
          // One fleet, one conversation: every replica's turn clock moves together.
          for (const c of caches) c.advanceTurn(op.turns ?? 0);
          clockMs += op.ms ?? 0;
          return;
        }
        case 'fault':
          faults[op.replica]!.push(op.fault!);
          return;
        case 'restart':
          await fleet.restart?.(s);
          return;
        case 'write':
        case 'failwrite':
        case 'errwrite': {
          const run = op.kind === 'write' ? tools.Edit : op.kind === 'failwrite' ? tools.Fail : tools.ErrResult;
          let r: ToolCallResult;
          try {
            r = await cache.call('Edit', { path: op.path }, run, { scope: 's', callId });
          } catch {
            count('failwrite:thrown');
            return;
          }
          count(`${op.kind}:${r.cache.type}${r.isError ? ':error' : ''}`);
          if (r.isError) return;
          const v = Number(String(r.content).split('@')[1]);
          const end = ++tick;
          writes.push({
            replica: op.replica,
            path: op.path,
            version: v,
            end,
            effective: ctx.invalidated.has(fileTag(op.path)) || ctx.marked.has(fileTag(op.path)) ? end : Number.POSITIVE_INFINITY,
            tags: [fileTag(op.path)],
          });
          return;
        }
        default: {
          const name = op.kind === 'read' ? 'Read' : op.kind === 'glob' ? 'Glob' : 'Stat';
          const args: { path: string } = op.kind === 'glob' ? ({ pattern: '**' } as never) : { path: op.path };
          const run = op.kind === 'read' ? tools.Read : op.kind === 'glob' ? tools.Glob : tools.Stat;
          const r = await cache.call(name, args, run as (a: { path: string }) => Promise<string>, { scope: 's', callId });
          check(op, i, start, startTurn, startMs, r);
        }
      }
    });
  });
  const errors = await s.run(actors);
  return { violations, errors, counts, trace: s.trace };
}

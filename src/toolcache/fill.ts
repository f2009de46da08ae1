/**
 * One run for a miss: claim the call across processes when the store
 * coordinates flights, run the tool, and insert the success only if no
 * invalidation happened since the miss read the epoch (the epoch guard).
 * Every in-process caller that joined the miss shares this one run.
 */
import { randomId } from '../internal/hash.js';
import type { ResolvedPolicy } from './policy.js';
import type { StatsRecorder } from './stats.js';
import type { CachedContent, FlightCoordinator, StoredEntry, ToolCacheStore } from './store.js';
import type { ToolRunner } from './types.js';

/** A cacheable call on its way through the cache. */
export interface ReadCall {
  readonly name: string;
  readonly policy: ResolvedPolicy;
  readonly key: string;
  readonly scope: string;
  readonly args: unknown;
  readonly run: ToolRunner<never>;
  readonly callId: string;
}

/** A tool's output as the cache measured it. */
export interface RunOutput {
  readonly content: CachedContent;
  readonly isError: boolean;
  readonly durationMs: number;
}

/** What a miss's run produced, and whether it was inserted. */
export interface FillResult extends RunOutput {
  /** `run`: this process ran the tool; `remote`: another process did, and its entry was read back. */
  readonly origin: 'run' | 'remote';
  readonly inserted: boolean;
  readonly notInserted?: 'error' | 'stale_epoch' | 'store_error' | 'no_content';
}

/** What a fill needs from its cache. */
export interface FillContext {
  readonly store: ToolCacheStore;
  readonly stats: StatsRecorder;
  readonly flightTimeoutMs: number;
  readonly session: string;
  now(): number;
  turn(): number;
  execute(call: ReadCall): Promise<RunOutput>;
  /** The entry under the call's key if it may be served now (expired and foreign ones removed). */
  lookup(call: ReadCall): Promise<StoredEntry | undefined>;
}

/** Runs a miss once (see the module comment). */
export async function fill(ctx: FillContext, call: ReadCall, epoch: number, tags: readonly string[]): Promise<FillResult> {
  const flight = ctx.store.flight;
  let token: string | undefined;
  if (flight !== undefined) {
    token = randomId();
    let acquired: boolean;
    try {
      acquired = await flight.acquire(call.key, token, ctx.flightTimeoutMs);
    } catch {
      ctx.stats.add(call.name, 'storeErrors');
      acquired = true;
      token = undefined;
    }
    if (!acquired) {
      token = undefined;
      const remote = await awaitRemote(ctx, call, flight);
      if (remote !== undefined) {
        return { content: remote.content, isError: false, durationMs: remote.durationMs, origin: 'remote', inserted: false };
      }
    }
  }
  try {
    // The turn and time at miss start: the content is at least this fresh, so the TTL counts from here.
    const insertedTurn = ctx.turn();
    const insertedAtMs = ctx.now();
    const out = await ctx.execute(call);
    if (out.isError) return { ...out, origin: 'run', inserted: false, notInserted: 'error' };
    // Only content a hit can replay is stored: a store reads anything else back as a damaged entry and drops it, so it
    // would never hit (and `inserted` would say it had been). What else a tool returns is the caller's to see (ToolCache.call).
    if (typeof out.content !== 'string' && !Array.isArray(out.content)) return { ...out, origin: 'run', inserted: false, notInserted: 'no_content' };
    const { ttlTurns, ttlMs } = call.policy;
    const entry: StoredEntry = {
      key: call.key,
      tool: call.name,
      scope: call.scope,
      content: out.content,
      durationMs: out.durationMs,
      insertedTurn,
      insertedAtMs,
      tags,
      // A store expires a second-TTL entry natively after `ttlMs`: the lifetime left now, since the age counts from the miss start.
      ...(ttlTurns !== undefined
        ? { ttlTurns, session: ctx.session }
        : { expiresAtMs: insertedAtMs + (ttlMs ?? 0), ttlMs: Math.max(1, insertedAtMs + (ttlMs ?? 0) - ctx.now()) }),
    };
    let inserted: boolean;
    try {
      inserted = await ctx.store.insertIfEpoch(entry, epoch);
    } catch {
      ctx.stats.add(call.name, 'storeErrors');
      return { ...out, origin: 'run', inserted: false, notInserted: 'store_error' };
    }
    if (!inserted) {
      ctx.stats.add(call.name, 'staleDrops');
      return { ...out, origin: 'run', inserted: false, notInserted: 'stale_epoch' };
    }
    return { ...out, origin: 'run', inserted: true };
  } finally {
    if (token !== undefined && flight !== undefined) {
      try {
        await flight.release(call.key, token);
      } catch {
        ctx.stats.add(call.name, 'storeErrors');
      }
    }
  }
}

/**
 * Another process runs this call: wait for it, then read the store again
 * rather than trusting the entry `wait` hands back, because only what is in the
 * store now has survived every invalidation so far.
 */
async function awaitRemote(ctx: FillContext, call: ReadCall, flight: FlightCoordinator): Promise<StoredEntry | undefined> {
  try {
    const waited = await flight.wait(call.key, ctx.flightTimeoutMs);
    if (waited === undefined) return undefined;
    return await ctx.lookup(call);
  } catch {
    ctx.stats.add(call.name, 'storeErrors');
    return undefined;
  }
}

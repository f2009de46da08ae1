/**
 * A child process for the multi-process tests: one agent replica with a real
 * ToolCache on a RedisToolCacheStore, driven by the parent over IPC.
 *
 * The "file system" is a Redis hash shared by all replicas, so every replica's
 * Read sees the same truth and a replica's Edit changes it for everyone. Read
 * counts its own runs (the parent sums them) and can be gated: it reports the
 * value it read and waits for the parent's `proceed`, so a test can interleave
 * another replica's write between a read's I/O and its insert.
 */

import { createClient } from 'redis';
import { fileTag } from '../../../src/toolcache/policy.js';
import { createRedisToolCacheStore } from '../../../src/toolcache/stores/redis.js';
import { ToolCache } from '../../../src/toolcache/tool-cache.js';

export interface WorkerInit {
  readonly url: string;
  readonly namespace: string;
  readonly frontTier: boolean;
  readonly toolDelayMs: number;
  readonly flightTimeoutMs: number;
  readonly ackTimeoutMs?: number;
  readonly leaseMs?: number;
}

export type WorkerRequest =
  | { readonly id: number; readonly op: 'read'; readonly path: string; readonly n: number; readonly gate?: boolean }
  | { readonly id: number; readonly op: 'write'; readonly path: string; readonly content: string }
  | { readonly id: number; readonly op: 'stats' }
  | { readonly id: number; readonly op: 'leased' }
  | { readonly op: 'proceed'; readonly path: string };

export interface ReadReply {
  readonly contents: readonly string[];
  readonly statuses: readonly string[];
  readonly notInserted: readonly (string | undefined)[];
}

const init = JSON.parse(process.argv[2] ?? '{}') as WorkerInit;
const send = (m: unknown): void => {
  process.send?.(m);
};

const fsKey = `{${init.namespace}}-fs`;
const fs = createClient({ url: init.url });
fs.on('error', () => undefined);
await fs.connect();

const store = await createRedisToolCacheStore({
  url: init.url,
  namespace: init.namespace,
  frontTier: init.frontTier ? { ...(init.leaseMs !== undefined && { leaseMs: init.leaseMs }) } : false,
  ...(init.ackTimeoutMs !== undefined && { ackTimeoutMs: init.ackTimeoutMs }),
  onWarning: (w) => send({ event: 'warning', code: w.code }),
});
// Every worker serves the same conversation: one session, so turn-TTL entries are shared.
const cache = new ToolCache({ store, flightTimeoutMs: init.flightTimeoutMs, session: init.namespace });
cache.register('Read', { cacheable: true, ttl: { turns: 100 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });

let runs = 0;
let callSeq = 0;
const gates = new Map<string, () => void>();
const gated = new Set<string>();

const read = async (args: { path: string }): Promise<string> => {
  runs += 1;
  const value = (await fs.hGet(fsKey, args.path)) ?? '';
  if (gated.has(args.path)) {
    gated.delete(args.path);
    send({ event: 'tool-read', path: args.path, value });
    await new Promise<void>((resolve) => gates.set(args.path, resolve));
  }
  if (init.toolDelayMs > 0) await new Promise((r) => setTimeout(r, init.toolDelayMs));
  return value;
};

const edit = async (args: { path: string; content: string }): Promise<string> => {
  await fs.hSet(fsKey, args.path, args.content);
  return 'ok';
};

const unmark = (c: unknown): string => String(c).replace(/\n?\[cached\]$/, '');

process.on('message', (raw) => {
  const req = raw as WorkerRequest;
  void (async () => {
    if (req.op === 'proceed') {
      gates.get(req.path)?.();
      gates.delete(req.path);
      return;
    }
    try {
      if (req.op === 'read') {
        if (req.gate === true) gated.add(req.path);
        const results = await Promise.all(
          Array.from({ length: req.n }, () => cache.call('Read', { path: req.path }, read, { scope: 'tenant-1', callId: `c${++callSeq}` })),
        );
        const reply: ReadReply = {
          contents: results.map((r) => unmark(r.content)),
          statuses: results.map((r) => r.cache.type),
          notInserted: results.map((r) => (r.cache.type === 'miss' ? r.cache.notInserted : undefined)),
        };
        send({ id: req.id, ok: true, value: reply });
      } else if (req.op === 'write') {
        const t0 = performance.now();
        const r = await cache.call('Edit', { path: req.path, content: req.content }, edit, {
          scope: 'tenant-1',
          callId: `c${++callSeq}`,
        });
        send({ id: req.id, ok: true, value: { status: r.cache, ms: performance.now() - t0 } });
      } else if (req.op === 'stats') {
        send({ id: req.id, ok: true, value: { runs, store: store.stats, cache: cache.stats() } });
      } else if (req.op === 'leased') {
        send({ id: req.id, ok: true, value: store.frontTierLeased });
      }
    } catch (error) {
      send({ id: req.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  })();
});

process.on('disconnect', () => {
  void store
    .close()
    .then(() => fs.destroy())
    .finally(() => process.exit(0));
});

send({ event: 'ready' });

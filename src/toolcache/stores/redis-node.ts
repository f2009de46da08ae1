/**
 * The node-redis v6 adapter (`redis` package, the client Redis recommends).
 * `redis` is an optional peer dependency: it is loaded with a dynamic import
 * only when this adapter creates a client, and no exported type mentions it.
 */

import { CachepointError, InvalidOptionError } from '../../errors.js';
import type { RedisLike, RedisLinkEvent, RedisMessageListener } from './redis-client.js';
import { SharedDeadline } from '../../internal/timeout.js';

/**
 * The part of a node-redis client the adapter uses, typed structurally so the
 * emitted declarations do not require `redis` to be installed.
 */
export interface NodeRedisClientLike {
  readonly isReady: boolean;
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  get(key: string): Promise<unknown>;
  /** node-redis's MGET (every version the adapter supports has it; optional so a narrower client still fits). */
  mGet?(keys: string[]): Promise<unknown>;
  del(key: string): Promise<unknown>;
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(source: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channels: string[], listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channels: string[], listener: (message: string, channel: string) => void): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  destroy(): void;
}

/** Options of {@link nodeRedisClient}. */
export interface NodeRedisClientOptions {
  /**
   * `redis[s]://[[user][:password]@]host[:port][/db]`. Default `redis://127.0.0.1:6379`; `undefined` means
   * the default too, so `url: process.env.REDIS_URL` compiles under `exactOptionalPropertyTypes`.
   */
  readonly url?: string | undefined;
  /**
   * Per-command timeout, enforced by the adapter. node-redis's own command
   * timeout (5 s by default) only covers commands still waiting to be written:
   * once a command is on the socket of a server that stopped answering, it
   * waits until the socket dies. The cache is an optimisation, so a short
   * timeout followed by pass-through is the better trade. Default 500.
   */
  readonly commandTimeoutMs?: number;
  /** Connect timeout per attempt. Default 1000. */
  readonly connectTimeoutMs?: number;
  /** Upper bound of the exponential reconnect back-off. Default 1000. */
  readonly maxReconnectDelayMs?: number;
  /** Extra `createClient` options (TLS, credentials, database, …); they override the ones above. */
  readonly clientOptions?: Readonly<Record<string, unknown>>;
}

/**
 * The `createClient` options the store expects: fail fast while disconnected
 * (no offline queue), a short command timeout, and endless reconnects with
 * capped back-off. Exported for users who create the clients themselves.
 */
export function recommendedNodeRedisOptions(options: NodeRedisClientOptions = {}): Record<string, unknown> {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  return {
    url: options.url ?? 'redis://127.0.0.1:6379',
    // Without this, commands issued while reconnecting wait in a queue until the
    // server is back: a tool call would hang instead of passing through.
    disableOfflineQueue: true,
    // No per-command timeout inside node-redis: it arms an AbortSignal.timeout per command (about
    // a third of a local GET's cost). The adapter times every command, written or not, with one
    // shared timer (adaptNodeRedis); a client made without these options keeps node-redis's own
    // 5 s timeout, which is harmless next to the adapter's.
    commandOptions: { timeout: 0 },
    // While a hung server answers nothing, new commands fail at once instead of piling up.
    commandsQueueMaxLength: 10_000,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 1000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), maxDelay),
    },
    ...options.clientOptions,
  };
}

/**
 * Creates a command client and a subscriber client (node-redis v6) and adapts them.
 * Resolves as soon as both connected or the first attempt failed: an unreachable
 * Redis at startup is not an error (calls pass through until it is back).
 *
 * @example
 * ```ts
 * const client = await nodeRedisClient({ url: process.env.REDIS_URL });
 * const store = new RedisToolCacheStore({ client, namespace: 'agents-prod' });
 * ```
 */
export async function nodeRedisClient(options: NodeRedisClientOptions = {}): Promise<RedisLike> {
  return connectNodeRedis(options, 'nodeRedisClient', 'adapt your own client (a RedisLike: see docs/redis.md)');
}

/**
 * {@link nodeRedisClient} for `caller`, whose message names it and what to do instead (`otherwise`) when `redis`
 * is not installed: a conversation store's user is not helped by the tool-cache store's alternative. @internal
 */
export async function connectNodeRedis(options: NodeRedisClientOptions, caller: string, otherwise: string): Promise<RedisLike> {
  checkTimings(options);
  let createClient: typeof import('redis')['createClient'];
  try {
    ({ createClient } = await import('redis'));
  } catch (cause) {
    throw new CachepointError(
      'cache_store',
      `${caller} needs the "redis" package (node-redis v6), an optional peer dependency of cachepoint: run \`npm install redis\`, or ${otherwise}.`,
      { cause },
    );
  }
  const clientOptions = recommendedNodeRedisOptions(options);
  let command: NodeRedisClientLike & { duplicate(): NodeRedisClientLike };
  try {
    command = createClient(clientOptions) as unknown as typeof command;
  } catch (error) {
    throw invalidUrl(error, options, clientOptions['url']);
  }
  const subscriber = command.duplicate();
  const adapter = adaptNodeRedis(command, subscriber, {
    ...(options.commandTimeoutMs !== undefined && { commandTimeoutMs: options.commandTimeoutMs }),
  });
  await firstConnectAttempt([command, subscriber], (options.connectTimeoutMs ?? 1000) + 250);
  return adapter;
}

/**
 * A timeout of 0, a negative one, NaN, Infinity or a string (an env var unparsed) makes every command or connection
 * attempt fail at once (a timer of 0, NaN or Infinity fires immediately): the store would be down for good, silently.
 */
function checkTimings(options: NodeRedisClientOptions): void {
  for (const [option, least] of [
    ['commandTimeoutMs', 1],
    ['connectTimeoutMs', 1],
    ['maxReconnectDelayMs', 0],
  ] as const) {
    const v: unknown = options[option];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < least)) {
      throw new InvalidOptionError(option, `must be a finite number of milliseconds ≥ ${least}, got ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`, {
        value: v,
      });
    }
  }
}

/**
 * node-redis parses the URL in `createClient` and throws a plain TypeError (its `input` holding the whole URL, password
 * included): named here as the option it came from, with the credentials masked and no cause attached.
 */
function invalidUrl(error: unknown, options: NodeRedisClientOptions, url: unknown): unknown {
  if (!(error instanceof TypeError)) return error;
  const option = options.clientOptions?.['url'] !== undefined ? 'clientOptions.url' : 'url';
  const expected = 'redis[s]://[[user][:password]@]host[:port][/db]';
  if (typeof url !== 'string') return new InvalidOptionError(option, `expected a URL string, ${expected}`, { value: typeof url, expected });
  const shown = maskCredentials(url);
  // node-redis's reason ("Invalid URL", "Invalid pathname", the protocol it refused), masked in case it quotes the URL.
  const reason = error.message.split(url).join(shown);
  return new InvalidOptionError(option, `${JSON.stringify(shown)} is not a Redis URL (${reason}): expected ${expected}`, { value: shown, expected });
}

/** Everything between the scheme and the last `@` (user and password, even one holding `/` or `@`) becomes `***`. */
function maskCredentials(url: string): string {
  return url.includes('@') ? url.replace(/^([^:/@]*:\/\/)?.*@/s, '$1***@') : url;
}

/** Waits until every client is ready or has reported a connection error, at most `timeoutMs`. */
async function firstConnectAttempt(clients: readonly NodeRedisClientLike[], timeoutMs: number): Promise<void> {
  await Promise.all(
    clients.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.isReady) return resolve();
          const done = (): void => {
            clearTimeout(timer);
            c.off('ready', done);
            c.off('error', done);
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          c.on('ready', done);
          c.on('error', done);
        }),
    ),
  );
}

/**
 * Adapts two node-redis v6 clients you created (use {@link recommendedNodeRedisOptions};
 * the subscriber is usually `command.duplicate()`). Connects them if they are not open.
 */
export function adaptNodeRedis(command: NodeRedisClientLike, subscriber: NodeRedisClientLike, options: { readonly commandTimeoutMs?: number } = {}): RedisLike {
  const timeoutMs = options.commandTimeoutMs ?? 500;
  // A timed-out command stays in node-redis's reply queue, so a late reply is
  // consumed in order and never mistaken for the answer to a later command.
  // One timer for every command in flight (SharedDeadline), not one per command.
  const deadline = new SharedDeadline(timeoutMs, `Redis did not answer within ${timeoutMs} ms`);
  const timed = <T>(p: Promise<T>): Promise<T> => deadline.run(p);
  const linkListeners = new Set<(e: RedisLinkEvent) => void>();
  const emit = (e: RedisLinkEvent): void => {
    for (const l of linkListeners) l(e);
  };
  for (const [client, link] of [
    [command, 'command'],
    [subscriber, 'subscriber'],
  ] as const) {
    // node-redis throws an unhandled 'error' event when no listener exists.
    client.on('error', (error: never) => emit({ link, state: 'down', error }));
    client.on('reconnecting', () => emit({ link, state: 'down' }));
    client.on('end', () => emit({ link, state: 'down' }));
    client.on('ready', () => emit({ link, state: 'ready' }));
    if (!client.isOpen) {
      // Rejects only when the client is destroyed while still connecting.
      client.connect().catch(() => undefined);
    }
  }
  let closed = false;
  const mGet = command.mGet?.bind(command);
  return {
    async get(key) {
      const v = await timed(command.get(key));
      return v === null || v === undefined ? null : String(v);
    },
    ...(mGet === undefined
      ? {}
      : {
          async mget(keys: readonly string[]) {
            const vs = (await timed(mGet([...keys]))) as unknown[];
            return vs.map((v) => (v === null || v === undefined ? null : String(v)));
          },
        }),
    async del(key) {
      return Number(await timed(command.del(key)));
    },
    evalSha: (sha1, keys, args) => timed(command.evalSha(sha1, { keys: [...keys], arguments: [...args] })),
    eval: (source, keys, args) => timed(command.eval(source, { keys: [...keys], arguments: [...args] })),
    async publish(channel, message) {
      return Number(await timed(command.publish(channel, message)));
    },
    async subscribe(channels, listener: RedisMessageListener) {
      await subscriber.subscribe([...channels], listener);
    },
    async unsubscribe(channels, listener: RedisMessageListener) {
      await subscriber.unsubscribe([...channels], listener);
    },
    onLinkEvent(listener) {
      linkListeners.add(listener);
      return () => linkListeners.delete(listener);
    },
    isReady: () => command.isReady,
    async close() {
      if (closed) return;
      closed = true;
      deadline.close();
      linkListeners.clear();
      // destroy(), not close(): close() waits for pending commands, which never
      // settle while the server is unreachable.
      command.destroy();
      subscriber.destroy();
    },
  };
}

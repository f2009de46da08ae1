/**
 * Conversations on Redis, shared by every worker: a conversation prepared on
 * one process continues on another. The record is stored as versioned JSON
 * (`exportState`) next to its revision; a save is one Lua script that writes
 * both only when the stored revision is the one the writer read (optimistic
 * concurrency), so two workers never interleave and the loser gets a typed
 * `ConversationConflictError`. Written against the small `RedisLike` client
 * surface of the tool-cache store (`nodeRedisClient` adapts node-redis v6).
 */
import { createHash } from 'node:crypto';
import { ConversationConflictError, ConversationStoreError, InvalidOptionError } from '../errors.js';
import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import type { RedisLike, RedisScript } from '../toolcache/stores/redis-client.js';
import { exportState, importState } from './state.js';
import type { ConversationRecord, ConversationStore } from './types.js';

// TYPES

/** Options of {@link RedisConversationStore}. */
export interface RedisConversationStoreOptions {
  /** A connected client (see `nodeRedisClient` in `cachepoint/redis`, or adapt your own). */
  readonly client: Pick<RedisLike, 'get' | 'del' | 'evalSha' | 'eval'> & Partial<Pick<RedisLike, 'close'>>;
  /** Key prefix, so several deployments can share one Redis (default `cachepoint`). */
  readonly namespace?: string;
  /** A conversation not saved for this long expires (ms; default 7 days; 0 keeps it forever). */
  readonly idleMs?: number;
  /** Whether {@link RedisConversationStore.close} closes the client too (default false). */
  readonly closeClient?: boolean;
}

// IMPLEMENTATION

// A conversation is its two keys; with one of them gone (a server with maxmemory and an eviction policy evicts
// keys one by one) it is absent for the load and the save alike. Before, the half left behind made every save
// conflict, forever: the loader saw one revision, the script the other.
const LOAD_SOURCE = `
local data = redis.call('GET', KEYS[2])
if data == false or redis.call('EXISTS', KEYS[1]) == 0 then return false end
return data
`;

/** Load: KEYS = revision, data. The record's JSON, or nil when either key is missing. */
const LOAD_SCRIPT: RedisScript = { source: LOAD_SOURCE, sha1: createHash('sha1').update(LOAD_SOURCE).digest('hex') };

// The incarnation (ConversationRecord.incarnation) has its own key: the revision key stays a number an older build's
// script compares. A record without one (an older build's) does not keep it. A writer without one meets a stored key
// only when the conversation was re-created since (a conflict, as on the other stores) or when an older build saved
// over a record that had one (its save leaves the key and drops the field): the stored record's field decides, read
// only then (exportState writes it as "incarnation":"<id>", and a string value cannot hold that unescaped).
const CAS_SOURCE = `
local rev = redis.call('GET', KEYS[1])
if rev == false or redis.call('EXISTS', KEYS[2]) == 0 then rev = '' end
if rev ~= ARGV[1] then return 'conflict:' .. rev end
if rev ~= '' then
  local inc = redis.call('GET', KEYS[3])
  if inc ~= false and inc ~= ARGV[5] then
    if ARGV[5] ~= '' then return 'recreated:' .. rev end
    if string.find(redis.call('GET', KEYS[2]), '"incarnation":"' .. inc .. '"', 1, true) then return 'recreated:' .. rev end
  end
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
if ARGV[5] ~= '' then redis.call('SET', KEYS[3], ARGV[5]) else redis.call('DEL', KEYS[3]) end
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  if ARGV[5] ~= '' then redis.call('PEXPIRE', KEYS[3], ttl) end
end
return 'ok'
`;

/** Compare-and-set: KEYS = revision, data, incarnation; ARGV = expected ('' for none), new revision, JSON, ttl ms, incarnation ('' for none). */
export const SAVE_SCRIPT: RedisScript = { source: CAS_SOURCE, sha1: createHash('sha1').update(CAS_SOURCE).digest('hex') };

const DEL_SOURCE = `redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) return 'ok'`;
const DELETE_SCRIPT: RedisScript = { source: DEL_SOURCE, sha1: createHash('sha1').update(DEL_SOURCE).digest('hex') };

/**
 * Conversation store on Redis.
 *
 * @example
 * import { createRedisConversationStore } from 'cachepoint/redis';
 * const store = await createRedisConversationStore({ url: process.env.REDIS_URL, namespace: 'agents' });
 * const { params } = await prepare(body, { conversationId: 'chat-42', store });
 */
export class RedisConversationStore implements ConversationStore {
  readonly #client: RedisConversationStoreOptions['client'];
  readonly #ns: string;
  readonly #idleMs: number;
  readonly #closeClient: boolean;

  constructor(options: RedisConversationStoreOptions) {
    refuseUnknownKeys(options, optionKeys<RedisConversationStoreOptions>({ client: true, namespace: true, idleMs: true, closeClient: true }));
    if (!options?.client) throw new InvalidOptionError('client', 'a Redis client is required (see nodeRedisClient)');
    const idle = options.idleMs ?? 7 * 24 * 60 * 60_000;
    if (!(idle >= 0) || !Number.isFinite(idle)) throw new InvalidOptionError('idleMs', 'must be a finite number of milliseconds ≥ 0');
    this.#client = options.client;
    this.#ns = options.namespace ?? 'cachepoint';
    this.#idleMs = Math.round(idle);
    this.#closeClient = options.closeClient ?? false;
  }

  /** Keys of a conversation (revision, data, incarnation); the hash tag keeps them on one cluster slot. */
  #keys(id: string): [string, string, string] {
    const tag = `${this.#ns}:conv:{${encodeURIComponent(id)}}`;
    return [`${tag}:rev`, `${tag}:data`, `${tag}:inc`];
  }

  async #script(s: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#client.evalSha(s.sha1, keys, args);
    } catch (err) {
      if (!String((err as Error)?.message ?? err).includes('NOSCRIPT')) throw err;
      return this.#client.eval(s.source, keys, args);
    }
  }

  async load(id: string): Promise<ConversationRecord | undefined> {
    let text: unknown;
    try {
      text = await this.#script(LOAD_SCRIPT, this.#keys(id).slice(0, 2), []);
    } catch (err) {
      throw new ConversationStoreError(id, `Redis load failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
    return typeof text === 'string' ? importState(text, id) : undefined;
  }

  async save(record: ConversationRecord, expected: number | null): Promise<void> {
    const keys = this.#keys(record.id);
    const text = exportState(record);
    let answer: unknown;
    try {
      answer = await this.#script(SAVE_SCRIPT, keys, [
        expected === null ? '' : String(expected),
        String(record.revision),
        text,
        String(this.#idleMs),
        record.incarnation ?? '',
      ]);
    } catch (err) {
      throw new ConversationStoreError(record.id, `Redis save failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
    const s = String(answer);
    const recreated = s.startsWith('recreated:');
    if (recreated || s.startsWith('conflict:')) {
      const actual = s.slice(s.indexOf(':') + 1);
      throw new ConversationConflictError(record.id, expected, actual === '' ? null : Number(actual), recreated);
    }
  }

  async delete(id: string): Promise<void> {
    try {
      await this.#script(DELETE_SCRIPT, this.#keys(id), []);
    } catch (err) {
      throw new ConversationStoreError(id, `Redis delete failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }

  /** Closes the client when the store owns it (`closeClient`). */
  async close(): Promise<void> {
    if (this.#closeClient) await this.#client.close?.();
  }
}

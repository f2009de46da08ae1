/**
 * The Lua scripts that make the Redis store's staleness rules hold across
 * processes. Redis runs a script to completion before any other command, so
 * each one is atomic: no reader can observe half an invalidation, and no insert
 * can slip between an epoch check and its write.
 *
 * Keys (all under one hash tag `{ns}`, so a Redis Cluster puts them in one slot
 * and the scripts may touch keys they compute):
 *
 * | key                 | type   | holds                                         |
 * |---------------------|--------|-----------------------------------------------|
 * | `{ns}:epoch`        | string | the invalidation epoch                        |
 * | `{ns}:run`          | string | the server run_id the data was written on     |
 * | `{ns}:e:<key>`      | string | one encoded entry, with native expiry (PX)    |
 * | `{ns}:t:<tag>`      | set    | bare entry keys carrying `<tag>`              |
 * | `{ns}:l:<key>`      | string | the singleflight lock: owner token, PX expiry |
 * | `{ns}:m:<tag>`      | set    | tokens of writes running on `<tag>`, PX expiry |
 * | `{ns}:all`          | string | the epoch of the last write to everything     |
 *
 * A write to everything (`~all`, {@link EVERYTHING_TAG}: a tool the cache was never told about) deletes nothing:
 * it sets `{ns}:all` to the epoch it moves to, and an entry is live only while the epoch it was inserted at (the
 * value's `g`, redis-codec.ts) is not below `{ns}:all`. So it costs O(1) however large the namespace; the entries
 * it made unreachable expire by their own TTL (or are deleted when a read meets one). No entry is in a `~all`
 * tag set, and every insert checks the `~all` write mark (every entry carries `~all`, listed or not).
 *
 * The epoch starts at the server's clock in microseconds when the key is
 * missing (first use, or a restart that lost the data). So an epoch read before
 * a restart never equals one read after it, even if the counter was lost: an
 * insert guarded by a pre-restart epoch is refused instead of matching by
 * accident (the ABA problem of a counter that restarts at 0).
 */

import { createHash } from 'node:crypto';
import { EVERYTHING_TAG } from '../store.js';
import type { RedisScript } from './redis-client.js';

function script(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

// Lua 5.1 prints large numbers as 1.8e+15; %.0f keeps every digit (< 2^53).
const EPOCH_OF = `
local function epoch_of(k)
  local e = redis.call('GET', k)
  if e then return e end
  local t = redis.call('TIME')
  e = string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', k, e)
  return e
end
`;

// Whether the raw value \`v\` of an entry is live: inserted at an epoch not below the last write to everything
// (KEY \`all\`; none yet: everything is live). The epoch is the value's \`g\`, which every format that has one
// writes right after its version (redis-codec.ts); a value without it is not one this version reads.
const LIVE = `
local function live(v, all)
  local a = tonumber(redis.call('GET', all) or '0')
  local g = tonumber(string.match(v, '^{"v":%d+,"g":(%d+)') or '')
  return g ~= nil and g >= a
end
`;

// Tags are Lua string literals below: the \`~all\` tag is one.
const ALL = JSON.stringify(EVERYTHING_TAG);

// Deletes the entries in one tag set (each once per script run: \`seen\`) and the set; appends what it deleted to \`evicted\`.
const EVICT_TAG = `
local function evict_tag(set, entry_prefix, seen, evicted)
  for _, m in ipairs(redis.call('SMEMBERS', set)) do
    if not seen[m] then
      seen[m] = true
      if redis.call('DEL', entry_prefix .. m) == 1 then evicted[#evicted + 1] = m end
    end
  end
  redis.call('DEL', set)
end
`;

/**
 * KEYS[1] = run key, KEYS[2] = epoch key. ARGV: SCAN patterns of the namespace's entries and tag sets.
 * Makes sure the namespace's data was written by the server process answering now (its `run_id`). A server
 * that restarted from a snapshot (RDB/AOF) or a replica promoted by a failover may hold older data: entries
 * that later invalidations had evicted, and an older epoch. Then every entry and tag set of the namespace is
 * deleted and the epoch moves above any earlier value, in one atomic step, before the store reads anything.
 * A namespace without a run key is new (a store sets the key before it inserts anything, so any entry a
 * snapshot holds came with the key): the key is set, nothing is deleted.
 * Returns { 0 (same server, or a new namespace) | 1 (wiped) | -1 (INFO unavailable: cannot tell), the
 * maxmemory-policy when the server may evict keys (maxmemory set and a policy other than noeviction), else '' }.
 */
export const VERIFY_SCRIPT = script(`
local function eviction()
  local ok, mem = pcall(redis.call, 'INFO', 'memory')
  if not ok then return '' end
  local max = tonumber(string.match(mem, 'maxmemory:(%d+)') or '0')
  local policy = string.match(mem, 'maxmemory_policy:([%w-]+)') or ''
  if max == nil or max == 0 or policy == 'noeviction' then return '' end
  return policy
end
local function verify()
local ok, info = pcall(redis.call, 'INFO', 'server')
if not ok then return -1 end
local id = string.match(info, 'run_id:(%x+)')
if not id then return -1 end
local known = redis.call('GET', KEYS[1])
if known == id then return 0 end
if not known then
  redis.call('SET', KEYS[1], id)
  return 0
end
for i = 1, 2 do
  local cursor = '0'
  repeat
    local r = redis.call('SCAN', cursor, 'MATCH', ARGV[i], 'COUNT', 1000)
    cursor = r[1]
    for _, k in ipairs(r[2]) do redis.call('DEL', k) end
  until cursor == '0'
end
local t = redis.call('TIME')
local e = tonumber(t[1]) * 1000000 + tonumber(t[2])
local old = tonumber(redis.call('GET', KEYS[2]) or '')
if old ~= nil and old >= e then e = old + 1 end
redis.call('SET', KEYS[2], string.format('%.0f', e))
redis.call('SET', KEYS[1], id)
return 1
end
return { verify(), eviction() }
`);

/** KEYS[1] = epoch key. Returns the epoch (initialising it when missing). */
export const EPOCH_SCRIPT = script(`${EPOCH_OF}
return tonumber(epoch_of(KEYS[1]))
`);

/**
 * KEYS[1] = epoch key, KEYS[2] = entry key.
 * ARGV: expected epoch, encoded value, px (0 = no expiry), tag-set prefix,
 * bare key, entry prefix, flight channel, write-mark prefix, then the tags
 * (without `~all`: no set holds every key, and its mark is checked for every entry).
 * Returns 1 when stored, 0 when the epoch moved or a write is running on one of
 * the tags or on everything (BEGIN_WRITE_SCRIPT's mark; nothing stored).
 *
 * Tag sets expire with the longest-lived entry they point to, and a set that
 * grew large is sampled for members whose entry already expired natively, so
 * the sets do not grow without bound between invalidations.
 */
export const INSERT_SCRIPT = script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', ARGV[8] .. ${ALL}) == 1 then return 0 end
for i = 9, #ARGV do
  if redis.call('EXISTS', ARGV[8] .. ARGV[i]) == 1 then return 0 end
end
local px = tonumber(ARGV[3])
if px > 0 then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', px)
else
  redis.call('SET', KEYS[2], ARGV[2])
end
for i = 9, #ARGV do
  local t = ARGV[4] .. ARGV[i]
  local ttl = redis.call('PTTL', t)
  redis.call('SADD', t, ARGV[5])
  if px > 0 then
    if ttl == -2 or (ttl >= 0 and ttl < px) then redis.call('PEXPIRE', t, px) end
  elseif ttl >= 0 then
    redis.call('PERSIST', t)
  end
  if redis.call('SCARD', t) > 32 then
    for _, m in ipairs(redis.call('SRANDMEMBER', t, 8)) do
      if redis.call('EXISTS', ARGV[6] .. m) == 0 then redis.call('SREM', t, m) end
    end
  end
end
redis.call('PUBLISH', ARGV[7], '1')
return 1
`);

/**
 * KEYS[1] = epoch key, KEYS[2] = the `all` key. ARGV: tag-set prefix, entry prefix, invalidation
 * channel, invalidation message, write-mark prefix, the number n of write
 * tokens, the n tokens, then the tags.
 * Deletes every entry in the tag sets and the sets, lifts the marks of the
 * tokens' writes (BEGIN_WRITE_SCRIPT) from the tags, advances the epoch and
 * publishes the message, all at once. `~all` deletes nothing: the `all` key takes the new epoch, which leaves
 * every entry inserted before unreachable (see the module comment). Returns { epoch, receivers, evicted keys }.
 */
export const INVALIDATE_SCRIPT = script(`${EPOCH_OF}${EVICT_TAG}
local n = tonumber(ARGV[6])
local seen = {}
local evicted = {}
local everything = false
for i = 7 + n, #ARGV do
  if ARGV[i] == ${ALL} then everything = true else evict_tag(ARGV[1] .. ARGV[i], ARGV[2], seen, evicted) end
  for j = 7, 6 + n do redis.call('SREM', ARGV[5] .. ARGV[i], ARGV[j]) end
end
epoch_of(KEYS[1])
local e = redis.call('INCR', KEYS[1])
if everything then redis.call('SET', KEYS[2], string.format('%.0f', e)) end
local r = redis.call('PUBLISH', ARGV[3], ARGV[4])
return { e, r, evicted }
`);

/**
 * Before a write tool runs. ARGV: tag-set prefix, entry prefix, invalidation channel, invalidation message,
 * write-mark prefix, the write's token, the mark's lifetime (ms), then the tags.
 * Deletes every entry in the tag sets (as INVALIDATE_SCRIPT does) and marks the tags as being written: until the
 * write's invalidation lifts the mark (or it expires), INSERT_SCRIPT refuses every entry that carries one of them.
 * So if that invalidation never arrives (the writer lost Redis, or died), no entry of the content before the write
 * is left for another replica to serve: the old ones went here, and reads that overlap the write cannot insert.
 * The epoch advances too: a run that started before the write must not be joined (singleflight joins by epoch) by
 * a call that starts after the write returned, which, with the invalidation lost, nothing else would move.
 * `~all` deletes nothing, as in INVALIDATE_SCRIPT: the `all` key (KEYS[2]) takes the new epoch.
 * Returns { receivers, evicted keys }.
 */
export const BEGIN_WRITE_SCRIPT = script(`${EPOCH_OF}${EVICT_TAG}
local seen = {}
local evicted = {}
local everything = false
local ms = tonumber(ARGV[7])
for i = 8, #ARGV do
  if ARGV[i] == ${ALL} then everything = true else evict_tag(ARGV[1] .. ARGV[i], ARGV[2], seen, evicted) end
  local mark = ARGV[5] .. ARGV[i]
  redis.call('SADD', mark, ARGV[6])
  if redis.call('PTTL', mark) < ms then redis.call('PEXPIRE', mark, ms) end
end
epoch_of(KEYS[1])
local e = redis.call('INCR', KEYS[1])
if everything then redis.call('SET', KEYS[2], string.format('%.0f', e)) end
local r = redis.call('PUBLISH', ARGV[3], ARGV[4])
return { r, evicted }
`);

/** ARGV: write-mark prefix, the write's token, then the tags. Lifts a failed write's marks (nothing else: no epoch, no eviction). */
export const END_WRITE_SCRIPT = script(`
for i = 3, #ARGV do redis.call('SREM', ARGV[1] .. ARGV[i], ARGV[2]) end
return 1
`);

/**
 * KEYS[1] = lock key, KEYS[2] = entry key, KEYS[3] = the `all` key. ARGV: token, ttl ms. Returns 1 when acquired.
 * Refuses while a live entry exists: a caller that missed just before another
 * runner stored and released must not start a second run; its `wait` returns
 * the stored entry at once. An entry a write to everything left unreachable is deleted instead.
 */
export const ACQUIRE_SCRIPT = script(`${LIVE}
local v = redis.call('GET', KEYS[2])
if v then
  if live(v, KEYS[3]) then return 0 end
  redis.call('DEL', KEYS[2])
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2])) then return 1 end
return 0
`);

/** KEYS[1] = lock key. ARGV: token, flight channel. Deletes the lock only if `token` owns it, then wakes the waiters. */
export const RELEASE_SCRIPT = script(`
local released = 0
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  released = 1
end
redis.call('PUBLISH', ARGV[2], '0')
return released
`);

/** KEYS[1] = entry key, KEYS[2] = lock key, KEYS[3] = the `all` key. Returns { live entry or false, lock exists }. */
export const PEEK_SCRIPT = script(`${LIVE}
local v = redis.call('GET', KEYS[1])
if v and not live(v, KEYS[3]) then v = false end
return { v, redis.call('EXISTS', KEYS[2]) }
`);

/**
 * KEYS[1] = entry key, KEYS[2] = the `all` key. Deletes the entry if a write to everything left it unreachable
 * (a read met it): not one inserted since, which the read did not see. Returns 1 when deleted.
 */
export const DROP_DEAD_SCRIPT = script(`${LIVE}
local v = redis.call('GET', KEYS[1])
if v and not live(v, KEYS[2]) then return redis.call('DEL', KEYS[1]) end
return 0
`);

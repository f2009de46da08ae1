/**
 * Render options: validated once, defaults resolved once.
 *
 * Every render entry point (render, renderAsync, hideBlock, editableZoneStart)
 * calls {@link resolveRenderOptions} first. An option the engine cannot honour
 * is refused here with an {@link InvalidOptionError} naming the option, the
 * value and the accepted range, so that options which validate always render a
 * valid request (no pass may throw for an option this module accepted).
 * Unknown keys are refused too: a misspelled `polcy` would otherwise be a
 * silent default.
 *
 * Our own small validator, not a schema library: the options are a dozen
 * fields, the messages must name the accepted range in the project's words,
 * and the resolved object is what the passes read.
 */
import { InvalidOptionError, TtlOrderError } from '../errors.js';
import { refuseUnknownKeys } from '../internal/option-keys.js';
import type { ModelProfile } from '../models/profiles.js';
import type { Summarizer } from '../summarize/types.js';
import { BlockTokenCache } from '../tokens/counter.js';
import type { CachePointLabel, CacheTtl, CompactOptions, PruneOptions, RenderOptions } from './types.js';

// TYPES

/** The two policies. */
export type RenderPolicy = NonNullable<RenderOptions['policy']>;

/** Render options with every default filled in; what the passes read. Frozen. */
export interface ResolvedRenderOptions {
  /** The caller's profile, when given (otherwise the state's model resolves it). */
  readonly profile: ModelProfile | undefined;
  readonly profiles: Readonly<Record<string, ModelProfile>> | undefined;
  /** Render time: read once per render, never again. */
  readonly now: number;
  readonly policy: RenderPolicy;
  readonly preTailOffset: number;
  /** TTL per label (⓪ follows ①), or undefined when the caller set none (adaptive TTLs may then apply). */
  readonly ttl: Readonly<Record<CachePointLabel, CacheTtl>> | undefined;
  readonly adaptiveTtl: boolean;
  readonly prune: Readonly<Required<PruneOptions>>;
  /**
   * The free prune that rides along with a compaction (everything after the
   * summary is re-written anyway): the conservative windows with the caller's
   * own prune settings on top, so `prune.enabled: false` holds here too.
   */
  readonly pruneOnCompaction: Readonly<Required<PruneOptions>>;
  readonly compact: Readonly<Required<CompactOptions>>;
  readonly tokens: BlockTokenCache;
  readonly expectedRemaining: number | undefined;
  readonly tokenFactor: number;
  readonly summarizer: Summarizer | undefined;
  readonly summarizerTimeoutMs: number;
}

/**
 * Checks one value. Called as `check(value, name)`, or as `check(object[key], name, key)` for a field of an
 * object (the field's full name, `name.key`, is only built for a message: validation allocates nothing).
 */
type Check = (value: unknown, name: string, key?: string) => void;

/** The full name of a field. */
const at = (name: string, key: string | undefined): string => (key === undefined ? name : `${name}.${key}`);

// IMPLEMENTATION

/** Shows a value in an error message (short, never throws). */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  try {
    const s = JSON.stringify(value);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  } catch {
    return 'an object';
  }
}

function bad(name: string, value: unknown, expected: string): never {
  throw new InvalidOptionError(name, `must be ${expected}, got ${show(value)}`, { value, expected });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (v, name, key) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      bad(at(name, key), v, max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer in [${min}, ${max}]`);
    }
  };

const finite =
  (min: number, open: boolean, expected: string): Check =>
  (v, name, key) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (open && v === min)) bad(at(name, key), v, expected);
  };

const boolean: Check = (v, name, key) => {
  if (typeof v !== 'boolean') bad(at(name, key), v, 'true or false');
};

const oneOf =
  (...values: readonly string[]): Check =>
  (v, name, key) => {
    if (!values.includes(v as string)) bad(at(name, key), v, `one of ${values.map((x) => `'${x}'`).join(', ')}`);
  };

const fraction: Check = (v, name, key) => {
  if (typeof v !== 'number' || !(v > 0 && v <= 1)) bad(at(name, key), v, 'a fraction in (0, 1]');
};

/** Refuses keys outside the fields of `known`, naming the nearest known one when there is a likely typo. */
function refuseUnknown(value: Record<string, unknown>, known: readonly Readonly<Record<string, Check>>[], prefix: string): void {
  refuseUnknownKeys(
    value,
    known.flatMap((fields) => Object.keys(fields)),
    prefix,
  );
}

function checkObject(v: unknown, name: string, fields: Readonly<Record<string, Check>>): Record<string, unknown> {
  if (!isRecord(v)) bad(name, v, `an object with keys ${Object.keys(fields).join(', ')}`);
  const known = KNOWN.get(fields) ?? KNOWN.set(fields, [fields]).get(fields)!;
  for (const key in v) if (!Object.hasOwn(fields, key)) refuseUnknown(v, known, `${name}.`);
  for (const key in fields) if (v[key] !== undefined) fields[key]!(v[key], name, key);
  return v;
}

/** `[fields]` per field table, for refuseUnknown (one array per table, not per check). */
const KNOWN = new WeakMap<object, readonly Readonly<Record<string, Check>>[]>();

const TTL_MS_FIELDS: Readonly<Record<string, Check>> = { '5m': finite(0, true, 'a number of ms > 0'), '1h': finite(0, true, 'a number of ms > 0') };
const price = finite(0, false, 'a price ≥ 0 (dollars per million tokens)');
const PRICE_FIELDS: Readonly<Record<string, Check>> = { input: price, cacheWrite5m: price, cacheWrite1h: price, cacheRead: price, output: price };
const LONG_CONTEXT_FIELDS: Readonly<Record<string, Check>> = { ...PRICE_FIELDS, aboveInputTokens: integer(0) };
const PRICES_FIELDS: Readonly<Record<string, Check>> = {
  ...PRICE_FIELDS,
  longContext: (l, n, key) => checkObject(l, at(n, key), LONG_CONTEXT_FIELDS),
};
const MARKERS_FIELDS: Readonly<Record<string, Check>> = { kind: oneOf('markers'), maxMarkers: integer(1), lookback: integer(1), implicit: boolean };
const AUTOMATIC_FIELDS: Readonly<Record<string, Check>> = {
  kind: oneOf('automatic'),
  granularity: integer(1),
  routingPrefixTokens: integer(0),
  overflowPerMinute: integer(1),
};

const PROFILE_FIELDS: Readonly<Record<string, Check>> = {
  id: (v, name, key) => {
    if (typeof v !== 'string' || v.length === 0) bad(at(name, key), v, 'a non-empty model id');
  },
  contextWindow: integer(1),
  minCacheableTokens: integer(0),
  ttlMs: (v, name, key) => checkObject(v, at(name, key), TTL_MS_FIELDS),
  prices: (v, name, key) => checkObject(v, at(name, key), PRICES_FIELDS),
  keepsThinking: boolean,
  lookback: integer(1),
  provider: oneOf('anthropic', 'bedrock', 'openai'),
  caching: (v, name, key) => {
    const full = at(name, key);
    if (!isRecord(v)) bad(full, v, "an object with kind 'markers' or 'automatic' (see models/caching.ts)");
    if (v.kind === 'markers') checkObject(v, full, MARKERS_FIELDS);
    else if (v.kind === 'automatic') checkObject(v, full, AUTOMATIC_FIELDS);
    else bad(`${full}.kind`, v.kind, "'markers' or 'automatic'");
  },
  betas: (v, name, key) => {
    if (!Array.isArray(v) || !v.every((b) => typeof b === 'string' && b.length > 0))
      bad(at(name, key), v, "a list of anthropic-beta values, e.g. ['context-1m-2025-08-07']");
  },
  apiModel: (v, name, key) => {
    if (typeof v !== 'string' || v.length === 0) bad(at(name, key), v, 'a non-empty model id');
  },
  bindsThinking: (v, name, key) => {
    if (typeof v !== 'boolean') bad(at(name, key), v, 'true or false');
  },
};

/** Profile fields a profile may leave out (the provider defaults to Anthropic and its rules). */
const OPTIONAL_PROFILE_FIELDS = new Set(['provider', 'caching', 'betas', 'apiModel', 'bindsThinking']);

const checkProfile: Check = (v, name, key) => {
  const full = at(name, key);
  checkObject(v, full, PROFILE_FIELDS);
  const p = v as Record<string, unknown>;
  for (const field in PROFILE_FIELDS)
    if (!OPTIONAL_PROFILE_FIELDS.has(field) && p[field] === undefined)
      bad(`${full}.${field}`, undefined, 'set (a model profile needs every field; see customProfile)');
};

const TTL_KEYS = ['envelope', 'previousTurn', 'preTail', 'tail'] as const;
const TTL_RANK: Record<CacheTtl, number> = { '1h': 2, '5m': 1 };

/** Checks of every render option, by key. */
const TTL_FIELDS: Readonly<Record<string, Check>> = Object.fromEntries(TTL_KEYS.map((k) => [k, oneOf('5m', '1h')]));
const PRUNE_FIELDS: Readonly<Record<string, Check>> = {
  keepTurns: integer(0),
  keepRounds: integer(0),
  minChars: integer(0),
  enabled: boolean,
  reuse: boolean,
  recallPenaltyTokens: finite(0, false, 'a number of tokens ≥ 0'),
};
const COMPACT_FIELDS: Readonly<Record<string, Check>> = { threshold: fraction, target: fraction, enabled: boolean };

/** Checks of every render option, by key. */
const RENDER_FIELDS: Readonly<Record<keyof RenderOptions, Check>> = {
  profile: checkProfile,
  profiles: (v, name, key) => {
    const full = at(name, key);
    if (!isRecord(v)) bad(full, v, 'an object of model profiles by id');
    for (const [id, p] of Object.entries(v)) checkProfile(p, full, id);
  },
  now: finite(Number.NEGATIVE_INFINITY, false, 'a time in ms since the epoch (a finite number)'),
  preTailOffset: integer(0, 1000),
  ttl: (v, name, key) => checkObject(v, at(name, key), TTL_FIELDS),
  adaptiveTtl: boolean,
  prune: (v, name, key) => checkObject(v, at(name, key), PRUNE_FIELDS),
  compact: (v, name, key) => checkObject(v, at(name, key), COMPACT_FIELDS),
  policy: oneOf('conservative', 'economy'),
  tokens: (v, name, key) => {
    if (!(v instanceof BlockTokenCache) && !(isRecord(v) && typeof v.tokens === 'function')) bad(at(name, key), v, 'a BlockTokenCache');
  },
  expectedRemaining: finite(0, false, 'a number of requests ≥ 0'),
  tokenFactor: finite(0, true, 'a finite factor > 0'),
  summarizer: (v, name, key) => {
    if (!isRecord(v) || typeof v.summarize !== 'function' || typeof v.name !== 'string') bad(at(name, key), v, 'a Summarizer ({ name, summarize })');
  },
  summarizerTimeoutMs: finite(0, true, 'a number of ms > 0'),
};

/** The keys {@link render} accepts. */
export const RENDER_OPTION_KEYS: readonly string[] = Object.keys(RENDER_FIELDS);

/** Checks of extra keys an entry point adds (hideBlock: note, defer, force). */
export type ExtraOptionChecks = Readonly<Record<string, Check>>;

export const HIDE_OPTION_CHECKS: ExtraOptionChecks = {
  note: (v, name, key) => {
    if (typeof v !== 'string') bad(at(name, key), v, 'a string');
  },
  defer: boolean,
  force: boolean,
};

/** Defaults of pruning per policy: economy keeps less, since it prunes while warm too. */
export function pruneDefaults(policy: RenderOptions['policy']): Required<PruneOptions> {
  return policy === 'economy'
    ? { keepTurns: 0, keepRounds: 1, minChars: 300, enabled: true, reuse: true, recallPenaltyTokens: 100_000 }
    : { keepTurns: 2, keepRounds: 8, minChars: 1000, enabled: true, reuse: true, recallPenaltyTokens: 100_000 };
}

const PRUNE_DEFAULTS: Readonly<Record<RenderPolicy, Readonly<Required<PruneOptions>>>> = {
  conservative: Object.freeze(pruneDefaults('conservative')),
  economy: Object.freeze(pruneDefaults('economy')),
};

/** Defaults of compaction. */
export const COMPACT_DEFAULTS: Readonly<Required<CompactOptions>> = Object.freeze({ threshold: 0.9, target: 0.6, enabled: true });

/** The TTL of each point, validated: longer TTLs must come first (the API answers 400 otherwise). */
export function resolveTtls(ttl: RenderOptions['ttl'] = {}): Record<CachePointLabel, CacheTtl> {
  const out = TTL_KEYS.map((k) => ttl[k] ?? '5m');
  for (let i = 1; i < out.length; i++) {
    if (TTL_RANK[out[i]!] > TTL_RANK[out[i - 1]!]) {
      throw new TtlOrderError(
        `ttl.${TTL_KEYS[i]} is '${out[i]}' but ttl.${TTL_KEYS[i - 1]} before it is '${out[i - 1]}': a ttl='1h' cache point must not come after a ttl='5m' one (the API answers 400). Give earlier points the longer TTL.`,
        { value: ttl, expected: "TTLs that never grow from envelope to tail ('1h' before '5m')" },
      );
    }
  }
  return { 0: out[0]!, 1: out[0]!, 2: out[1]!, 3: out[2]!, 4: out[3]! };
}

let sharedTokens: BlockTokenCache | undefined;

/** The process-wide token cache used when no `tokens` option is given. */
export function defaultTokenCache(): BlockTokenCache {
  return (sharedTokens ??= new BlockTokenCache());
}

/**
 * Validates render options and fills in every default. `undefined` values
 * count as absent. Reads the clock once when `now` is not given.
 *
 * @param extra checks of keys an entry point accepts besides the render options
 * @throws {InvalidOptionError} naming the option, the value and the accepted range
 *   (a {@link TtlOrderError} for TTLs that grow towards the tail)
 * @example
 * resolveRenderOptions({ policy: 'cheap' });
 * // InvalidOptionError: policy: must be one of 'conservative', 'economy', got "cheap"
 */
export function resolveRenderOptions(options: unknown = {}, extra: ExtraOptionChecks = {}): ResolvedRenderOptions {
  if (options === undefined || options === null) options = {};
  if (!isRecord(options)) bad('options', options, 'an object of render options');
  const o = options as RenderOptions & Record<string, unknown>;
  for (const key in o) if (!Object.hasOwn(RENDER_FIELDS, key) && !Object.hasOwn(extra, key)) refuseUnknown(o, [RENDER_FIELDS, extra], '');
  for (const key in RENDER_FIELDS) if (o[key] !== undefined) RENDER_FIELDS[key as keyof RenderOptions](o[key], key);
  for (const key in extra) if (o[key] !== undefined) extra[key]!(o[key], key);

  const policy: RenderPolicy = o.policy ?? 'conservative';
  // Without a prune or compact option, the defaults themselves (frozen, shared by every render).
  const prune = o.prune === undefined ? PRUNE_DEFAULTS[policy] : { ...pruneDefaults(policy), ...definedOnly(o.prune) };
  const compact = o.compact === undefined ? COMPACT_DEFAULTS : { ...COMPACT_DEFAULTS, ...definedOnly(o.compact) };
  if (compact.target >= compact.threshold) {
    const which = o.compact?.target !== undefined ? 'compact.target' : 'compact.threshold';
    throw new InvalidOptionError(
      which,
      `compact.target (${compact.target}) must be below compact.threshold (${compact.threshold}): compaction starts at the threshold and stops under the target`,
      { value: o.compact, expected: '0 < target < threshold ≤ 1' },
    );
  }
  const ttl = o.ttl ? resolveTtls(definedOnly(o.ttl)) : undefined;
  return Object.freeze({
    profile: o.profile,
    profiles: o.profiles,
    now: o.now ?? Date.now(),
    policy,
    preTailOffset: o.preTailOffset ?? 4,
    ttl: ttl && Object.freeze(ttl),
    adaptiveTtl: o.adaptiveTtl ?? false,
    prune: Object.freeze(prune),
    pruneOnCompaction: o.prune === undefined ? PRUNE_DEFAULTS.conservative : Object.freeze({ ...pruneDefaults('conservative'), ...definedOnly(o.prune) }),
    compact: Object.freeze(compact),
    tokens: o.tokens ?? defaultTokenCache(),
    expectedRemaining: o.expectedRemaining,
    tokenFactor: o.tokenFactor ?? 1,
    summarizer: o.summarizer,
    summarizerTimeoutMs: o.summarizerTimeoutMs ?? 30_000,
  });
}

function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

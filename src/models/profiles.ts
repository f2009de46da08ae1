/**
 * Model profiles: every per-model number the renderer, the cost gate and the
 * simulator need. Anthropic's caching docs changed often in 2026, so nothing
 * here is a constant of the code: every figure is a field, and users can
 * override or extend the table (see {@link resolveProfile}).
 */
import { InvalidOptionError, UnknownModelError } from '../errors.js';
import { editDistance } from '../internal/option-keys.js';
import type { CachingRules, ProviderId } from './caching.js';

/** Prices in US dollars per million tokens. */
export interface ModelPrices {
  /** Base input price (uncached input). */
  readonly input: number;
  /** Writing a 5-minute cache entry (normally 1.25 × input). */
  readonly cacheWrite5m: number;
  /** Writing a 1-hour cache entry (normally 2 × input). */
  readonly cacheWrite1h: number;
  /** Reading (and refreshing) a cache entry (normally 0.1 × input). */
  readonly cacheRead: number;
  /** Output tokens. */
  readonly output: number;
  /**
   * Long-context pricing (1M-window beta profiles): a request whose input side (input + cache
   * reads + cache writes) exceeds `aboveInputTokens` is billed, whole, at these prices instead.
   */
  readonly longContext?: LongContextPrices;
}

/** The premium rates of a request over the long-context threshold (see {@link ModelPrices.longContext}). */
export interface LongContextPrices {
  /** The threshold: 200,000 input-side tokens. */
  readonly aboveInputTokens: number;
  readonly input: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
  readonly output: number;
}

/** What cachepoint needs to know about one model. */
export interface ModelProfile {
  /** The API model id, e.g. `claude-sonnet-4-6`. */
  readonly id: string;
  /** Context window in tokens. */
  readonly contextWindow: number;
  /** Below this many prefix tokens a marker writes nothing (no error). */
  readonly minCacheableTokens: number;
  /** Cache lifetimes in milliseconds. */
  readonly ttlMs: { readonly '5m': number; readonly '1h': number };
  readonly prices: ModelPrices;
  /**
   * Whether the model keeps thinking blocks of earlier turns. Older models strip
   * them when a plain user turn arrives, so every byte after the first one misses.
   */
  readonly keepsThinking: boolean;
  /**
   * Preserved thinking ("thinking block binding"): the API checks that everything before a thinking or
   * redacted_thinking block that comes back (top-level `system`, `tools`, and all message content before it)
   * is unchanged from the request that produced it; if not, that block and every later thinking block are
   * invalid and the request is refused with a 400 (the default for accounts created on or after
   * 2026-08-31) or they are dropped. The renderer then never sends a thinking block whose prefix changed
   * (render/bind.ts). Set on {@link BINDING_MODELS}; absent (false) elsewhere.
   */
  readonly bindsThinking?: boolean;
  /** How many positions a marker looks back for an earlier entry (20). */
  readonly lookback: number;
  /** The provider whose API this id belongs to (default `anthropic`). */
  readonly provider?: ProviderId;
  /** How that provider caches for this model (default: Anthropic's markers, `lookback`, 4 at most). */
  readonly caching?: CachingRules;
  /**
   * `anthropic-beta` values every request with this profile must carry (the mappers send them:
   * `anthropicHeaders`, `prepare`'s `headers`, the Session's client call, the AI SDK middleware).
   * The 1M-window profiles (`<model>[1m]`) carry {@link CONTEXT_1M_BETA}.
   */
  readonly betas?: readonly string[];
  /** The model id requests are sent with, when the profile id is not one (`claude-sonnet-4-5[1m]` → `claude-sonnet-4-5`). */
  readonly apiModel?: string;
}

const FIVE_MINUTES = 5 * 60_000;

/**
 * Models with preserved thinking (thinking blocks bound to their prefix): the supported-models list of
 * https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks and
 * .../fix-bound-to-a-different-conversation (read 2026-11-30). Bedrock's page
 * (docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-thinking-block-binding.html, read
 * 2026-11-30) says Mythos 5.1 records the signature without running the check: it is kept here, since
 * the renderer's guard only drops thinking whose prefix really changed.
 */
export const BINDING_MODELS: readonly string[] = Object.freeze([
  'claude-fable-5-2',
  'claude-mythos-5-2',
  'claude-fable-5-1',
  'claude-mythos-5-1',
  'claude-opus-5-5',
  'claude-sonnet-5-5',
  'claude-haiku-5-5',
]);

/** Prices are decimal: 3 × 0.1 is $0.30, not 0.30000000000000004. */
const dollars = (x: number): number => Math.round(x * 1e9) / 1e9;
const ONE_HOUR = 60 * 60_000;

function profile(
  id: string,
  input: number,
  output: number,
  minCacheableTokens: number,
  contextWindow: number,
  keepsThinking: boolean,
  readMultiplier = 0.1,
): ModelProfile {
  return Object.freeze({
    id,
    contextWindow,
    minCacheableTokens,
    ttlMs: Object.freeze({ '5m': FIVE_MINUTES, '1h': ONE_HOUR }),
    prices: Object.freeze({
      input,
      cacheWrite5m: dollars(input * 1.25),
      cacheWrite1h: dollars(input * 2),
      cacheRead: dollars(input * readMultiplier),
      output,
    }),
    keepsThinking,
    lookback: 20,
  });
}

/**
 * The built-in table (Sep 2026 documentation; see docs/models.md). Minimums and
 * read multipliers follow the documented values; models the docs do not list
 * yet (the x.5 / x.2 generation in the SDK's model list) use their family's
 * figures and are marked as estimates in the docs. Claude 4.x windows are the
 * 200k default; the 1M window needs a beta header: pass a profile for it.
 */
export const MODEL_PROFILES: Readonly<Record<string, ModelProfile>> = Object.freeze(
  Object.fromEntries(
    [
      profile('claude-fable-5-2', 10, 50, 512, 1_000_000, true, 0.025),
      profile('claude-mythos-5-2', 10, 50, 512, 1_000_000, true, 0.025),
      profile('claude-fable-5-1', 10, 50, 512, 1_000_000, true, 0.025),
      profile('claude-mythos-5-1', 10, 50, 512, 1_000_000, true, 0.025),
      profile('claude-fable-5', 10, 50, 512, 1_000_000, true),
      profile('claude-mythos-5', 10, 50, 512, 1_000_000, true),
      profile('claude-mythos-preview', 10, 50, 2048, 1_000_000, true),
      profile('claude-opus-5-5', 5, 25, 512, 1_000_000, true, 0.05),
      profile('claude-opus-5', 5, 25, 512, 1_000_000, true),
      profile('claude-opus-4-8', 5, 25, 1024, 200_000, true),
      profile('claude-opus-4-7', 5, 25, 2048, 200_000, true),
      profile('claude-opus-4-6', 5, 25, 4096, 200_000, true),
      profile('claude-opus-4-5', 5, 25, 4096, 200_000, true),
      profile('claude-opus-4-1', 15, 75, 1024, 200_000, false),
      profile('claude-sonnet-5-5', 2, 10, 1024, 1_000_000, true),
      profile('claude-sonnet-5', 2, 10, 1024, 1_000_000, true),
      profile('claude-sonnet-4-6', 3, 15, 1024, 200_000, true),
      profile('claude-sonnet-4-5', 3, 15, 1024, 200_000, false),
      profile('claude-haiku-5-5', 1, 5, 4096, 200_000, false),
      profile('claude-haiku-4-5', 1, 5, 4096, 200_000, false),
      // Older models still found in logs (dated ids resolve to these).
      profile('claude-opus-4', 15, 75, 1024, 200_000, false),
      profile('claude-sonnet-4', 3, 15, 1024, 200_000, false),
      profile('claude-3-7-sonnet', 3, 15, 1024, 200_000, false),
      profile('claude-3-5-sonnet', 3, 15, 1024, 200_000, false),
      profile('claude-3-5-haiku', 0.8, 4, 2048, 200_000, false),
    ]
      .map((p) => (BINDING_MODELS.includes(p.id) ? Object.freeze({ ...p, bindsThinking: true }) : p))
      .map((p) => [p.id, p]),
  ),
);

// 1M-TOKEN CONTEXT WINDOWS

/** The `anthropic-beta` value that opens the 1M-token window on the models of {@link LONG_CONTEXT_BETA_MODELS}. */
export const CONTEXT_1M_BETA = 'context-1m-2025-08-07';

/** The suffix of a 1M-window profile id: `claude-sonnet-4-5[1m]` (the spelling Claude Code uses). */
export const LONG_CONTEXT_SUFFIX = '[1m]';

/**
 * Models whose 1M window is opened by {@link CONTEXT_1M_BETA}, with the long-context multipliers
 * of the base price that apply above 200k input-side tokens (docs/models.md has the sources and dates):
 * - Sonnet 4 (beta since 2025-08-12) and Sonnet 4.5: input ×2 ($6), output ×1.5 ($22.50); cache
 *   writes and reads follow input (×2);
 * - Opus 4.6 and Sonnet 4.6 (beta at launch, 2026-02): the same multipliers ($10 / $37.50 on Opus).
 *   Anthropic's model pages now list these two with a 1M window at flat prices; secondary sources
 *   date that (GA, header no longer needed, no premium) to 2026-03-13. The header is accepted
 *   either way; for flat pricing pass your own profile (customProfile, `betas`, no `longContext`).
 */
export const LONG_CONTEXT_BETA_MODELS: Readonly<Record<string, { readonly input: number; readonly output: number }>> = Object.freeze({
  'claude-sonnet-4': { input: 2, output: 1.5 },
  'claude-sonnet-4-5': { input: 2, output: 1.5 },
  'claude-sonnet-4-6': { input: 2, output: 1.5 },
  'claude-opus-4-6': { input: 2, output: 1.5 },
});

/** The long-context threshold: requests over 200k input-side tokens are billed at the premium. */
export const LONG_CONTEXT_THRESHOLD = 200_000;

/**
 * The 1M-window profile of a model: `<id>[1m]`, a 1,000,000-token window, the
 * `anthropic-beta: context-1m-2025-08-07` header on every request, long-context
 * prices above 200k input tokens, and `apiModel` = the plain id (what the request
 * names). A model whose own profile already has a 1M window is returned as it is
 * (no header needed). `resolveProfile('claude-sonnet-4-5[1m]')` returns the same.
 *
 * @throws {InvalidOptionError} for a model with no 1M window (Haiku 4.5, Opus 4.1, …)
 *
 * @example
 * const p = longContextProfile('claude-sonnet-4-5');
 * p.contextWindow; // 1000000
 * p.betas; // ['context-1m-2025-08-07']
 */
export function longContextProfile(model: string | ModelProfile, overrides: Readonly<Record<string, ModelProfile>> = {}): ModelProfile {
  const base =
    typeof model === 'string' ? resolveProfile(model.endsWith(LONG_CONTEXT_SUFFIX) ? model.slice(0, -LONG_CONTEXT_SUFFIX.length) : model, overrides) : model;
  if (base.contextWindow >= 1_000_000) return base;
  const family = base.apiModel ?? base.id;
  const m = LONG_CONTEXT_BETA_MODELS[family];
  if (m === undefined) {
    throw new InvalidOptionError(
      'model',
      `${family} has no 1M-token context window (the ${CONTEXT_1M_BETA} beta covers ${Object.keys(LONG_CONTEXT_BETA_MODELS).join(', ')}; models with a native 1M window need no suffix)`,
    );
  }
  const p = base.prices;
  const longContext: LongContextPrices = Object.freeze({
    aboveInputTokens: LONG_CONTEXT_THRESHOLD,
    input: dollars(p.input * m.input),
    cacheWrite5m: dollars(p.cacheWrite5m * m.input),
    cacheWrite1h: dollars(p.cacheWrite1h * m.input),
    cacheRead: dollars(p.cacheRead * m.input),
    output: dollars(p.output * m.output),
  });
  return Object.freeze({
    ...base,
    id: `${family}${LONG_CONTEXT_SUFFIX}`,
    apiModel: family,
    contextWindow: 1_000_000,
    prices: Object.freeze({ ...p, longContext }),
    betas: Object.freeze([...(base.betas ?? []).filter((b) => b !== CONTEXT_1M_BETA), CONTEXT_1M_BETA]),
  });
}

/** The id a request names for `model`: a 1M-window id (`…[1m]`) names its plain model. */
export function apiModelId(model: string): string {
  return model.endsWith(LONG_CONTEXT_SUFFIX) ? model.slice(0, -LONG_CONTEXT_SUFFIX.length) : model;
}

/**
 * Why a model id cannot be sent as it is, or undefined when it can: an id with leading or trailing whitespace
 * resolves its profile (canonicalModelId trims, to read it) but names no model, so the request would be refused.
 * The doors that send the id refuse it with this; trimming it silently would send an id other than the one given.
 *
 * @example
 * unsendableModelId(' claude-sonnet-4-6'); // '" claude-sonnet-4-6" has leading or trailing whitespace: …; pass "claude-sonnet-4-6"'
 */
export function unsendableModelId(model: string): string | undefined {
  if (!/^\s|\s$/.test(model)) return undefined;
  return `${JSON.stringify(model)} has leading or trailing whitespace: no model has that id (the request would be refused); pass ${JSON.stringify(model.trim())}`;
}

/**
 * The cloud platform a model id names, or undefined for an Anthropic API id (or one that does not say: Vertex also
 * takes some ids without `@date`). Bedrock: `[region.]anthropic.…` and Bedrock ARNs; Vertex: `…@<date>`.
 *
 * @example
 * cloudPlatformOf('us.anthropic.claude-sonnet-4-5-20250929-v1:0'); // 'Bedrock'
 * cloudPlatformOf('claude-opus-4-1@20250805'); // 'Vertex'
 * cloudPlatformOf('claude-sonnet-4-6'); // undefined
 */
export function cloudPlatformOf(model: string): 'Bedrock' | 'Vertex' | undefined {
  const id = model.trim();
  if (/^arn:aws[a-z-]*:bedrock:/.test(id) || /^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?anthropic\./.test(id)) return 'Bedrock';
  return /@\d{8}$/.test(id) ? 'Vertex' : undefined;
}

/**
 * Why `diagnostics: true` cannot be honoured for `model`, or undefined when it can: the API's cache diagnostics are
 * "currently available on the Claude API only. It is not supported on Amazon Bedrock or Vertex AI"
 * (platform.claude.com/docs/en/build-with-claude/cache-diagnostics, 2026-12-01).
 *
 * @example
 * diagnosticsUnavailable('claude-sonnet-4-5@20250929'); // 'the API's cache diagnostics are offered on the Claude API only, …'
 */
export function diagnosticsUnavailable(model: string): string | undefined {
  const platform = cloudPlatformOf(model);
  if (platform === undefined) return undefined;
  return `the API's cache diagnostics are offered on the Claude API only, not on ${platform} ("${model}" is a ${platform} model id): set diagnostics to false there`;
}

/** The model used when none is given: the one most agent sessions run on. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** Dated ids (`claude-haiku-4-5-20251001`) resolve to their undated family. */
const DATED = /^(.*)-\d{8}$/;

/**
 * The Anthropic API id a provider-specific model id names, so it finds its
 * profile:
 * - Amazon Bedrock: `anthropic.claude-sonnet-4-5-20250929-v1:0`, with a
 *   cross-region prefix (`us.`, `eu.`, `apac.`, `global.`, …) or none;
 * - Google Vertex AI: `claude-sonnet-4-5@20250929`, `claude-3-5-sonnet-v2@20241022`;
 * - aliases: `claude-3-7-sonnet-latest`, `claude-sonnet-4-0`.
 * Dated ids keep their date here (resolveProfile drops it as before).
 *
 * @example
 * canonicalModelId('us.anthropic.claude-sonnet-4-5-20250929-v1:0'); // 'claude-sonnet-4-5-20250929'
 * canonicalModelId('claude-opus-4-1@20250805'); // 'claude-opus-4-1-20250805'
 */
export function canonicalModelId(model: string): string {
  let id = model.trim();
  // Bedrock ARNs that name the model: …:inference-profile/<id> (cross-region), …::foundation-model/<id>
  const arn = BEDROCK_MODEL_ARN.exec(id);
  if (arn) id = arn[1]!;
  // Bedrock: [region.]anthropic.<id>[-vN[:M]]
  const bedrock = /^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?anthropic\.(.+)$/.exec(id);
  if (bedrock) id = bedrock[1]!.replace(/-v\d+(?::\d+)?$/, '');
  // Vertex: <id>@<date>
  const vertex = /^(.+)@(\d{8})$/.exec(id);
  if (vertex) id = `${vertex[1]!.replace(/-v\d+$/, '')}-${vertex[2]}`;
  // Aliases: -latest, and the "-0" of claude-sonnet-4-0 / claude-opus-4-0.
  id = id.replace(/-latest$/, '').replace(/^(claude-[a-z]+-\d+)-0$/, '$1');
  return id;
}

/**
 * Finds a model's profile.
 *
 * @param model a model id: the API's (dated ids resolve to their family), Bedrock's,
 *   Vertex's or an alias (see {@link canonicalModelId}); or a full custom profile
 * @param overrides extra or replacement profiles, consulted first (by the id as given, then canonical)
 * @throws {UnknownModelError} naming the known ids and the fix when nothing matches
 *
 * @example
 * const p = resolveProfile('claude-sonnet-4-6');
 * p.prices.cacheRead; // 0.3 ($ per million tokens)
 * resolveProfile('global.anthropic.claude-sonnet-4-6').id; // 'claude-sonnet-4-6'
 */
export function resolveProfile(model: string | ModelProfile, overrides: Readonly<Record<string, ModelProfile>> = {}): ModelProfile {
  if (typeof model !== 'string') return model;
  if (model.endsWith(LONG_CONTEXT_SUFFIX) && overrides[model] === undefined) return longContextProfile(model, overrides);
  const table = { ...MODEL_PROFILES, ...overrides };
  const direct = table[model] ?? table[model.replace(DATED, '$1')];
  if (direct) return direct;
  const canonical = canonicalModelId(model);
  const found = table[canonical] ?? table[canonical.replace(DATED, '$1')];
  if (found) return found;
  throw new UnknownModelError(
    model,
    Object.keys(table),
    canonical === model ? undefined : canonical,
    undefined,
    unknownModelHint(model, canonical, Object.keys(table)),
  );
}

const BEDROCK_MODEL_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]*:\d*:(?:inference-profile|foundation-model)\/(.+)$/;
/**
 * Bedrock ARNs that name no model: an application inference profile, and what AWS says to pass as `modelId` for a
 * provisioned, custom or imported model ("Specify the provisioned model ARN as the modelId":
 * docs.aws.amazon.com/bedrock/latest/userguide/prov-thru-use.html, 2026-12-02).
 */
const BEDROCK_OPAQUE_ARN = /^arn:aws[a-z-]*:bedrock:.*:(application-inference-profile|provisioned-model|custom-model-deployment|custom-model|imported-model)\//;
const OPAQUE_KIND: Readonly<Record<string, string>> = {
  'application-inference-profile': 'An application inference profile ARN',
  'provisioned-model': 'A provisioned model (Provisioned Throughput) ARN',
  'custom-model-deployment': 'A custom model deployment ARN',
  'custom-model': 'A custom model ARN',
  'imported-model': 'An imported model ARN',
};

/** Whether an id (as read, `canonical`) names an OpenAI model: what the Anthropic doors and the CLI without `--provider openai` refuse. */
export function isOpenAIModelId(canonical: string): boolean {
  return /^(?:gpt-|chatgpt-|o\d)/.test(canonical);
}

/**
 * What to tell a new user whose model id matched nothing: an application
 * inference profile ARN (opaque: it does not name its model), an OpenAI id
 * given to the Anthropic doors, or the known id a typo is closest to (never
 * another version: the digits must be the same).
 */
function unknownModelHint(model: string, canonical: string, known: readonly string[]): string | undefined {
  const opaque = BEDROCK_OPAQUE_ARN.exec(model);
  if (opaque) {
    return `${OPAQUE_KIND[opaque[1]!]} does not name its model: pass the profile of the model it runs, e.g. render: { profile: resolveProfile('claude-sonnet-4-5') }.`;
  }
  const other = /^(?:[a-z]{2,4}\.)?(amazon|meta|mistral|cohere|ai21|deepseek|writer|qwen|openai|twelvelabs|stability)\./.exec(model);
  if (other) {
    return `This is a Bedrock model of another provider (${other[1]}): cachepoint's profiles are Claude's, and that model's cache rules and prices are not. If you know them, pass a profile built for it (customProfile), e.g. render: { profile: customProfile('${model}', { prices: { input: 0.8 } }) }.`;
  }
  if (isOpenAIModelId(canonical)) {
    return `This is an OpenAI model: prepare and Session send Anthropic Messages requests. For OpenAI, render with profile: OPENAI_MODELS['${canonical}'] and map with toOpenAIResponses / toOpenAIChat, or wrap @ai-sdk/openai with cachepointMiddleware (docs/providers.md).`;
  }
  const base = canonical.replace(DATED, '$1');
  const digits = (s: string) => s.replace(/\D/g, '');
  const near = known.find((k) => digits(k) === digits(base) && editDistance(k, base) <= 2);
  return near === undefined ? undefined : `Did you mean "${near}"?`;
}

/** Builds a custom profile from a base input price with the standard multipliers. */
export function customProfile(
  id: string,
  fields: Partial<Omit<ModelProfile, 'id' | 'prices'>> & {
    readonly prices: Partial<ModelPrices> & Pick<ModelPrices, 'input'>;
  },
): ModelProfile {
  const base = profile(id, fields.prices.input, fields.prices.output ?? fields.prices.input * 5, 1024, 200_000, true);
  return Object.freeze({ ...base, ...fields, id, prices: Object.freeze({ ...base.prices, ...fields.prices }) });
}

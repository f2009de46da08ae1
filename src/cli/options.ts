/**
 * Command-line options shared by `render`, `replay` and `simulate`, mapped to
 * render options. Parsing uses node:util parseArgs (no dependency); every bad
 * value is an InvalidOptionError naming the flag.
 */
import { InvalidOptionError, UnknownModelError } from '../errors.js';
import { isOpenAIModelId, resolveProfile } from '../models/profiles.js';
import type { CacheTtl } from '../render/types.js';
import type { ReplayOptions } from '../replay/replay.js';
import type { ProviderId } from '../models/caching.js';
import { PROVIDER_IDS } from '../providers/registry.js';

/** The flags every engine command accepts (parseArgs `options`). */
export const ENGINE_FLAGS = {
  model: { type: 'string' },
  policy: { type: 'string' },
  'pre-tail-offset': { type: 'string' },
  'ttl-envelope': { type: 'string' },
  'ttl-previous-turn': { type: 'string' },
  'ttl-pre-tail': { type: 'string' },
  'ttl-tail': { type: 'string' },
  'keep-turns': { type: 'string' },
  'keep-rounds': { type: 'string' },
  'prune-min-chars': { type: 'string' },
  'no-prune': { type: 'boolean' },
  'compact-threshold': { type: 'string' },
  'compact-target': { type: 'string' },
  'no-compact': { type: 'boolean' },
} as const;

export const ENGINE_HELP = `Engine options:
  --model ID                 override the trace's model
  --policy conservative|economy
  --pre-tail-offset N        round offset of cache point ③ (default 4)
  --ttl-envelope 5m|1h       TTL of ① (also --ttl-previous-turn, --ttl-pre-tail, --ttl-tail)
  --keep-turns N --keep-rounds N --prune-min-chars N   pruning windows
  --no-prune                 never prune
  --compact-threshold F --compact-target F              fractions of the context window
  --no-compact               never compact`;

/** compact.ts's defaults, for the cross-check of the two fractions. */
const COMPACT_DEFAULTS = { threshold: 0.9, target: 0.6 } as const;

type Values = Record<string, string | boolean | undefined>;

function int(values: Values, flag: string, min = 0): number | undefined {
  const v = values[flag];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InvalidOptionError(`--${flag}`, `must be an integer ≥ ${min}, got "${String(v)}"`);
  return n;
}

function fraction(values: Values, flag: string): number | undefined {
  const v = values[flag];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!(n > 0 && n <= 1)) throw new InvalidOptionError(`--${flag}`, `must be a fraction in (0, 1], got "${String(v)}"`);
  return n;
}

function ttl(values: Values, flag: string): CacheTtl | undefined {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (v !== '5m' && v !== '1h') throw new InvalidOptionError(`--${flag}`, `must be 5m or 1h, got "${String(v)}"`);
  return v;
}

/** `--provider`: anthropic (default), bedrock or openai. */
export function providerFlag(values: Values): ProviderId {
  const v = values.provider ?? 'anthropic';
  if (typeof v !== 'string' || !(PROVIDER_IDS as readonly string[]).includes(v)) {
    throw new InvalidOptionError('--provider', `must be one of ${PROVIDER_IDS.join(', ')}, got "${String(v)}"`);
  }
  return v as ProviderId;
}

/** Maps parsed flags to replay/render options. */
export function engineOptions(values: Values): ReplayOptions {
  const policy = values.policy;
  if (policy !== undefined && policy !== 'conservative' && policy !== 'economy') {
    throw new InvalidOptionError('--policy', `must be conservative or economy, got "${String(policy)}"`);
  }
  const ttls = {
    envelope: ttl(values, 'ttl-envelope'),
    previousTurn: ttl(values, 'ttl-previous-turn'),
    preTail: ttl(values, 'ttl-pre-tail'),
    tail: ttl(values, 'ttl-tail'),
  };
  const definedTtls = Object.fromEntries(Object.entries(ttls).filter(([, v]) => v !== undefined));
  const prune = {
    keepTurns: int(values, 'keep-turns'),
    keepRounds: int(values, 'keep-rounds'),
    minChars: int(values, 'prune-min-chars'),
    ...(values['no-prune'] ? { enabled: false } : {}),
  };
  const compact = {
    threshold: fraction(values, 'compact-threshold'),
    target: fraction(values, 'compact-target'),
    ...(values['no-compact'] ? { enabled: false } : {}),
  };
  // Compaction shrinks the input from `threshold` down to `target`: a target at or above the
  // threshold would compact on every request. The defaults (0.9 / 0.6) fill in a missing side.
  const threshold = compact.threshold ?? COMPACT_DEFAULTS.threshold;
  const target = compact.target ?? COMPACT_DEFAULTS.target;
  if (target >= threshold) {
    const flag = compact.target !== undefined ? '--compact-target' : '--compact-threshold';
    throw new InvalidOptionError(
      flag,
      `the target (${target}) must be below the threshold (${threshold}): compaction shrinks the input from the threshold down to the target`,
    );
  }
  const clean = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  const offset = int(values, 'pre-tail-offset');
  if (typeof values.model === 'string' && values.provider !== 'openai') knownModel(values.model);
  return {
    ...(typeof values.model === 'string' ? { model: values.model } : {}),
    ...(policy ? { policy } : {}),
    ...(offset !== undefined ? { preTailOffset: offset } : {}),
    ...(Object.keys(definedTtls).length ? { ttl: definedTtls } : {}),
    ...(Object.keys(clean(prune)).length ? { prune: clean(prune) } : {}),
    ...(Object.keys(clean(compact)).length ? { compact: clean(compact) } : {}),
  } as ReplayOptions;
}

/**
 * A `--model` the user typed must be one the engine knows (OpenAI's table is
 * checked by its own provider): a trace's own unknown model falls back to the
 * default figures with a warning, but a flag that names a model asks for that
 * model's prices, so a typo is an error saying what it most likely is.
 */
function knownModel(model: string): void {
  try {
    resolveProfile(model);
  } catch (err) {
    if (!(err instanceof UnknownModelError)) throw err;
    // The library's hint for an OpenAI id is code (OPENAI_MODELS, toOpenAIResponses); the CLI's fix is a flag.
    if (isOpenAIModelId(err.canonical ?? model)) {
      throw new InvalidOptionError(
        '--model',
        `"${model}" is an OpenAI model: add --provider openai (simulate, replay and report take it); without it the trace is rendered for Claude`,
        {
          value: model,
        },
      );
    }
    const readAs = err.canonical ? ` (read as "${err.canonical}")` : '';
    throw new InvalidOptionError('--model', `unknown model "${model}"${readAs}.${err.hint ? ` ${err.hint}` : ''} Known: ${err.known.join(', ')}.`, {
      value: model,
    });
  }
}

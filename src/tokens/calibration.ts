/**
 * Calibration: the local token estimate (js-tiktoken cl100k, see counter.ts)
 * corrected per model from what the provider reports. Claude's tokenizer is
 * not published, and on some content (code, non-Latin text, JSON) cl100k is
 * off by 10–30%; a compaction threshold of "90% of the window" computed from an
 * uncorrected estimate could then overflow the real window.
 *
 * Each response's usage tells the true prompt size: `input_tokens +
 * cache_read_input_tokens + cache_creation_input_tokens` (the three are
 * disjoint parts of the same prompt). Divided by the local count of that same
 * request, it is one sample of the ratio real/local. The factor is the median
 * of the recent samples (robust to one odd request), clamped to [0.5, 2] so a
 * mismatched sample (e.g. a usage paired with the wrong request) cannot make
 * the estimate absurd.
 *
 * How the renderer uses it: every token figure compared with a model limit
 * (compaction threshold and target, the context window check, the cost gate's
 * token counts) is multiplied by `factor(model)` — or passed through
 * `correct(model, n)` — before the comparison. Per-block counts stay
 * uncorrected (they are memoized per block and shared between models).
 */
import { InvalidOptionError } from '../errors.js';

// TYPES

/** The input side of a response's `usage` (the SDK's `Usage` fits; `null` counts as 0). */
export interface ReportedInput {
  readonly input_tokens: number;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
}

/** Options of {@link Calibration}. */
export interface CalibrationOptions {
  /** How many recent samples the median looks at (default 15). */
  readonly window?: number;
  /** Lowest factor (default 0.5). */
  readonly min?: number;
  /** Highest factor (default 2). */
  readonly max?: number;
  /**
   * Requests whose local count is below this are ignored (default 200): on tiny
   * prompts the provider's fixed per-request overhead (e.g. the tool-use system
   * prompt) dominates the ratio.
   */
  readonly minLocalTokens?: number;
}

/** What the calibration knows about one model. */
export interface CalibrationStats {
  /** The current correction factor (real ≈ local × factor). */
  readonly factor: number;
  /** Samples observed in total (the median uses the last `window`). */
  readonly samples: number;
  /** The ratio of the latest sample, unclamped. */
  readonly lastRatio?: number;
}

/** Serializable form, to carry a calibration across processes. */
export interface CalibrationSnapshot {
  readonly v: 1;
  readonly models: Readonly<Record<string, { readonly ratios: readonly number[]; readonly samples: number }>>;
}

// IMPLEMENTATION

/** Dated ids (`claude-haiku-4-5-20251001`) share their family's tokenizer and so its factor. */
const DATED = /^(.*)-\d{8}$/;
const family = (model: string): string => model.replace(DATED, '$1');

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new InvalidOptionError(name, `must be a positive integer, got ${value}`);
  return value;
}

/**
 * Per-model correction of local token estimates from reported usage.
 *
 * @example
 * const calibration = new Calibration();
 * const r = render(state);
 * const message = await client.messages.create(toAnthropic(r));
 * calibration.observe(r.model, r.tokens.total, message.usage);
 * calibration.correct(r.model, 150_000); // e.g. 171_000 when Claude counts 14% more
 */
export class Calibration {
  readonly #window: number;
  readonly #min: number;
  readonly #max: number;
  readonly #minLocal: number;
  readonly #models = new Map<string, { ratios: number[]; samples: number; last?: number }>();

  constructor(options: CalibrationOptions = {}, snapshot?: CalibrationSnapshot) {
    this.#window = positiveInteger('window', options.window ?? 15);
    this.#min = options.min ?? 0.5;
    this.#max = options.max ?? 2;
    this.#minLocal = options.minLocalTokens ?? 200;
    if (!(this.#min > 0 && this.#min <= 1 && this.#max >= 1 && Number.isFinite(this.#max))) {
      throw new InvalidOptionError('min/max', `need 0 < min ≤ 1 ≤ max < ∞, got min ${this.#min}, max ${this.#max}`);
    }
    if (!(this.#minLocal >= 0)) throw new InvalidOptionError('minLocalTokens', `must be ≥ 0, got ${this.#minLocal}`);
    for (const [model, m] of Object.entries(snapshot?.models ?? {})) {
      this.#models.set(model, { ratios: m.ratios.slice(-this.#window), samples: m.samples });
    }
  }

  /**
   * Records one request: its local count and the usage the provider reported
   * for it. Ignored (returns `false`) when the local count is under
   * `minLocalTokens` or the report is empty.
   */
  observe(model: string, localCount: number, reported: ReportedInput): boolean {
    const real = reported.input_tokens + (reported.cache_read_input_tokens ?? 0) + (reported.cache_creation_input_tokens ?? 0);
    if (!(localCount >= this.#minLocal && localCount > 0 && real > 0 && Number.isFinite(real))) return false;
    const key = family(model);
    let m = this.#models.get(key);
    if (!m) this.#models.set(key, (m = { ratios: [], samples: 0 }));
    const ratio = real / localCount;
    m.ratios.push(ratio);
    if (m.ratios.length > this.#window) m.ratios.shift();
    m.samples++;
    m.last = ratio;
    return true;
  }

  /** real ≈ local × factor; 1 until the model was observed. */
  factor(model: string): number {
    const m = this.#models.get(family(model));
    if (!m || m.ratios.length === 0) return 1;
    return Math.min(this.#max, Math.max(this.#min, median(m.ratios)));
  }

  /** A local count corrected for the model (rounded up: a threshold should err towards holding). */
  correct(model: string, localTokens: number): number {
    return Math.ceil(localTokens * this.factor(model));
  }

  /** Per model (family id): factor, sample count and the last ratio. */
  stats(): Readonly<Record<string, CalibrationStats>> {
    const out: Record<string, CalibrationStats> = {};
    for (const [model, m] of [...this.#models].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      out[model] =
        m.last === undefined ? { factor: this.factor(model), samples: m.samples } : { factor: this.factor(model), samples: m.samples, lastRatio: m.last };
    }
    return out;
  }

  /** The samples, to restore with `new Calibration(options, snapshot)`. */
  snapshot(): CalibrationSnapshot {
    const models: Record<string, { ratios: number[]; samples: number }> = {};
    for (const [model, m] of this.#models) models[model] = { ratios: [...m.ratios], samples: m.samples };
    return { v: 1, models };
  }
}

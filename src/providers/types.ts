/**
 * How a provider caches, as data. The renderer, the cost gate and the simulator
 * read these fields instead of assuming Anthropic's rules, so a new provider
 * (or a provider's rule change) is a new table entry, not new code.
 * Declarations only.
 */
import type { ModelProfile } from '../models/profiles.js';
import type { ProviderId } from '../models/caching.js';

export type { CachingRules, ProviderId } from '../models/caching.js';

/** Where a figure comes from: the provider's own page (or SDK), the day it was checked, and whether it is an estimate. */
export interface Sourced {
  readonly source: string;
  /** ISO date the figure was checked. */
  readonly checked: string;
  /** Set when the provider's docs are silent or disagree: what was assumed and why. */
  readonly estimate?: string;
}

/** One provider: its rules, its model table and where every figure comes from. */
export interface ProviderProfile {
  readonly id: ProviderId;
  readonly name: string;
  /** Model profiles by the id this provider's API takes. */
  readonly models: Readonly<Record<string, ModelProfile>>;
  /** Figure name → its source (rules, prices, minimums, TTLs). */
  readonly sources: Readonly<Record<string, Sourced>>;
}

/**
 * What the session actually cost, when its trace carries the usage the
 * provider reported (`cachepoint import` keeps it as `usage` on assistant
 * events): the figure to hold cachepoint's simulated cost against.
 */
import { DEFAULT_MODEL, type ModelProfile, resolveProfile } from '../models/profiles.js';
import { priceUsage, type ReportedUsage } from '../models/pricing.js';

export interface RecordedUsage {
  /** Model responses in the trace, and how many of them carry usage. */
  readonly responses: number;
  readonly withUsage: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Prompt cost of the responses with usage, priced with the model profile (output excluded). */
  readonly cost: number;
  /** The envelope was an importer's estimate (the log lacked the system prompt and tools). */
  readonly estimatedEnvelope: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The model's profile, or the default model's for one the table does not know (as replay does). */
function profileOf(model: string): ModelProfile {
  try {
    return resolveProfile(model);
  } catch {
    return resolveProfile(DEFAULT_MODEL);
  }
}

/**
 * Sums the reported usage of a trace's raw lines (parsed JSON objects, in order).
 * Returns undefined when no assistant event carries usage.
 */
export function recordedUsage(lines: Iterable<unknown>): RecordedUsage | undefined {
  let model = DEFAULT_MODEL;
  let responses = 0;
  let withUsage = 0;
  let input = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let cost = 0;
  let estimatedEnvelope = false;
  for (const e of lines) {
    if (!isObj(e)) continue;
    if (e.type === 'envelope') {
      if (typeof e.model === 'string') model = e.model;
      if (e.estimated !== undefined) estimatedEnvelope = true;
    }
    if (e.type !== 'assistant') continue;
    responses++;
    const u = e.usage;
    if (!isObj(u) || typeof u.input_tokens !== 'number') continue;
    withUsage++;
    const usage = u as unknown as ReportedUsage;
    input += usage.input_tokens;
    cacheRead += usage.cache_read_input_tokens ?? 0;
    cacheWrite += usage.cache_creation_input_tokens ?? 0;
    cost += priceUsage(profileOf(model).prices, usage).total;
  }
  return withUsage === 0 ? undefined : { responses, withUsage, input, cacheRead, cacheWrite, cost, estimatedEnvelope };
}

/**
 * The generated sessions the economy tests replay (economy-incremental, economy-branches): one open turn of
 * `requests` rounds, or `requests` requests over many turns, with tails, the agent's hides, re-reads and re-runs
 * as real agents do, no huge payloads.
 */
import { generateTrace } from '../../src/synthetic/generate.js';
import type { TraceEvent } from '../../src/trace/types.js';

export function economySession(seed: string, model: string, shape: 'single' | 'multi', requests: number): TraceEvent[] {
  return generateTrace({
    seed: `${seed}-${shape}-${model}`,
    profile: 'coding',
    requests,
    ...(shape === 'single' ? { rounds: { median: requests, min: requests, max: requests } } : {}),
    tail: true,
    hides: true,
    revisits: true,
    hugeRate: 0,
    model,
  });
}

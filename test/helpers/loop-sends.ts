/**
 * A generated session fed through a disturbed plain loop (test/helpers/plain-loop.ts), and the check the judge's loop
 * makes of what it sent: every request priced in order by one simulator, none refused, none a bust.
 */
import { expect } from 'vitest';
import type { ConversationStore } from '../../src/conversation/types.js';
import { replay, type ReplayedRequest } from '../../src/replay/replay.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { generateTrace, type GenerateOptions } from '../../src/synthetic/generate.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { type LoopDisturbance, type SentRequest, throughPrepare } from './plain-loop.js';

/** Every request the loop sent for the session `options` generates, under `policy` (default conservative). */
export async function loopSends(
  options: GenerateOptions,
  disturb: LoopDisturbance,
  how: { readonly policy?: 'economy'; readonly store?: ConversationStore; readonly conversationId?: string } = {},
): Promise<SentRequest[]> {
  const events = generateTrace(options);
  const policy = how.policy;
  const expected: ReplayedRequest[] = [];
  for await (const r of replay(events, { extras: { max_tokens: 2048 }, ...(policy ? { policy } : {}), onWarning: () => {} })) expected.push(r);
  const sent: SentRequest[] = [];
  await throughPrepare(events, expected, {
    conversationId: how.conversationId ?? 'loop',
    ...(how.store ? { store: how.store } : {}),
    ...(policy ? { render: { policy } } : {}),
    disturb,
    onSent: (s) => sent.push(s),
  });
  return sent;
}

/** Every request sent, priced in order by one simulator: none refused, none a bust (`planned`: and each read as its plan says). */
export function expectNoBust(sent: readonly SentRequest[], planned = false): void {
  const sim = new CacheSimulator();
  for (const s of sent) {
    const r = sim.send(s.params, s.at);
    const what = `request ${s.index} (${s.kind})`;
    expect(r.rejected?.message ?? validateRequest(s.params)?.message, what).toBeUndefined();
    expect(
      r.explain?.bust ? `missed the warm entry at position ${r.explain.missedPosition}, read ${r.explain.read?.position}` : undefined,
      what,
    ).toBeUndefined();
    if (planned) expect(s.plan.usage.cache_read_input_tokens, what).toBe(r.usage?.cache_read_input_tokens);
  }
}

/**
 * The re-use gate's penalty (`recallPenaltyTokens`: the latency and risk a forced recall adds beyond its bill)
 * prices an edit made from a note, or the agent stopping to recall a file's text. A one-shot lookup's result is
 * needed again only by the same call asked again, which brings it back itself: it carries no penalty
 * (src/render/reuse.ts), so economy prunes it at its warm weighing, knowingly (p in the decision).
 */
import { describe, expect, it } from 'vitest';
import { payloadAsContent } from '../../src/recall/recall-tool.js';
import { recall } from '../../src/render/hide-block.js';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

const LOG = lines('log', 120, 'records the');
const LOOKUP = 'turns/1/rounds/1/results/toolu_0';
const CALLS: Call[] = [
  ['Bash', { command: 'tail -n 120 server.log' }, LOG],
  ...['pwd', 'whoami', 'date', 'uname', 'git status', 'git log -1'].map((command): Call => ['Bash', { command }, 'ok']),
];

describe('a one-shot lookup carries no recall penalty', () => {
  it('economy prunes the log tail at its warm weighing, p in the decision; nothing forced, recall byte-identical', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace(CALLS)), { policy: 'economy', recalls: true });
    const pruned = reqs.flatMap((r) => r.rendered.decisions).find((d) => d.type === 'prune' && d.path === LOOKUP);
    expect(pruned).toBeDefined();
    expect(pruned!.type === 'prune' && pruned!.price?.warm).toBe(true);
    expect(pruned!.type === 'prune' && pruned!.price?.reuse?.p).toBeGreaterThan(0);
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
    expect(payloadAsContent(recall(reqs.at(-1)!.rendered.state, LOOKUP))).toBe(LOG);
  });

  it('the same call asked again after the prune is one forced recall, charged', async () => {
    const again: Call[] = [...CALLS, ['Bash', { command: 'tail -n 120 server.log' }, LOG]];
    const reqs = await replayAll(parseTrace(oneTurnTrace(again)), { policy: 'economy', recalls: true });
    expect(reqs.filter((r) => r.forced).flatMap((r) => r.forced!.map((f) => f.path))).toEqual([LOOKUP]);
  });
});

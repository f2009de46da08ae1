/**
 * A replay with forced recalls has more requests than the trace: cachepoint's
 * run carries the extra request after each inserted recall round, the peer's
 * and the ideal bound's runs do not. The report pairs each of cachepoint's
 * requests with the same trace request of the peer, and marks the extra ones.
 */
import { describe, expect, it } from 'vitest';
import { buildReportData } from '../../src/report/data.js';
import { renderReport } from '../../src/report/render-report.js';
import { compareTrace } from '../../src/replay/compare.js';
import { parseTrace } from '../../src/trace/reader.js';
import { oneTurnTrace } from '../helpers/one-turn-trace.js';
import { GENERATED_AT, RECALL_CALLS, RECALL_OPTIONS } from './helpers.js';

describe('buildReportData with forced recall rounds', () => {
  it("pairs each of cachepoint's requests with the peer's and the ideal's request for the same trace request, and marks the inserted one", async () => {
    const events = parseTrace(oneTurnTrace(RECALL_CALLS));
    const c = await compareTrace(() => events, RECALL_OPTIONS);
    const data = buildReportData(c, { title: 't', peer: 'system_last' });
    const peerRun = c.runs.system_last!;
    // Six trace requests, seven of cachepoint's: the one after the recall round is extra.
    expect(peerRun).toHaveLength(6);
    expect(data.requests).toHaveLength(7);
    // The last request is the trace's last one: the peer sent it too.
    expect(data.requests.at(-1)!.peer).toEqual(expect.objectContaining({ cost: peerRun.at(-1)!.cost?.total }));
    const inserted = data.requests.filter((r) => r.recall !== undefined);
    expect(inserted.map((r) => r.index)).toEqual([c.engine.findIndex((r) => r.forced)]);
    expect(inserted[0]!.recall).toEqual(['turns/1/rounds/1/results/toolu_0']);
    expect(inserted[0]!.peer).toBeNull();
    expect(inserted[0]!.ideal).toBeNull();
    // Every other request shows the peer's request for the same trace request, in order, each once.
    const paired = data.requests.filter((r) => r.recall === undefined);
    expect(paired.map((r) => r.peer?.cost)).toEqual(peerRun.map((r) => r.cost?.total));
    expect(paired.map((r) => r.ideal)).toEqual(c.ideal.requests.map((r) => r.cost));
    expect(data.events.filter((e) => e.type === 'recall').map((e) => e.request)).toEqual([inserted[0]!.index]);
    // The page says so, and still has one bar group per cachepoint request.
    const html = renderReport(data, { generatedAt: GENERATED_AT });
    expect(html.match(/<g class="req" data-i=/g)).toHaveLength(2 * 7);
    expect(html).toContain('recall round');
  });
});

import { describe, expect, it } from 'vitest';
import { compareStrategies, formatExplain, formatRequestTable, formatTotals, simulateAll, simulationJson, type SimRequest } from '../../src/sim/index.js';
import { chat, M5, MIN, OPTIONS, req, text } from './helpers.js';

const session: SimRequest[] = [
  { at: 0, params: req([text(300, M5)], chat(1, 50, { 0: M5 })) },
  { at: 1 * MIN, params: req([text(300, M5)], chat(3, 50, { 2: M5 })) },
  { at: 2 * MIN, params: req([text(300, M5)], chat(5, 50, { 0: M5, 2: M5, 3: M5, 4: M5 })) },
  { at: 3 * MIN, params: req([text(300, M5)], chat(30, 50, { 29: M5 })) },
  { at: 15 * MIN, params: req([text(300, M5)], chat(32, 50, { 31: M5 })) },
];

describe('formatRequestTable', () => {
  it('prints one aligned line per request, with rejections and busts', () => {
    expect(formatRequestTable(simulateAll(session, OPTIONS))).toMatchInlineSnapshot(`
      "#       at  read  write 5m  write 1h  uncached     cost
      0    +0.0s     0       350         0         0  $0.0004
      1   +60.0s   350       100         0         0  $0.0002
      2  +120.0s     —         —         —         —        —  rejected 400: A maximum of 4 blocks with cache_control may be provided. Found 5.
      3  +180.0s   300     1,500         0         0  $0.0019  BUST −150
      4  +900.0s     0     1,900         0         0  $0.0024"
    `);
  });
});

describe('formatExplain', () => {
  it('prints the change, each marker, the usage and busts', () => {
    expect(formatExplain(simulateAll(session.slice(0, 2), OPTIONS))).toMatchInlineSnapshot(`
      "#0 +0.0s sim-test: 350 tokens in 2 positions
        changed: nothing before the end of the previous request
        marker0 system.0 @0 5m 300 tok: write; found nothing
        marker1 messages.0.content.0 @1 5m 350 tok: write; found nothing
        usage: read 0, write 5m 350, write 1h 0, input 0; cost $0.0004
      #1 +60.0s sim-test: 450 tokens in 4 positions
        changed: nothing before the end of the previous request
        marker0 system.0 @0 5m 300 tok: hit; found 300 at position 0 (0 back)
        marker1 messages.2.content.0 @3 5m 450 tok: read; found 350 at position 1 (2 back)
        usage: read 350, write 5m 100, write 1h 0, input 0; cost $0.0002"
    `);
  });
});

describe('formatTotals', () => {
  it('prints one line per strategy with ×none and ×ideal', () => {
    const { summaries } = compareStrategies(session, OPTIONS);
    expect(formatTotals(summaries)).toMatchInlineSnapshot(`
      "strategy          label                                cost  vs none  vs ideal  busts  rejected
      none              no caching                        $0.0050   ×1.000    ×1.452      0         0
      envelope          envelope only                     $0.0044   ×0.869    ×1.262      0         0
      auto              automatic caching                 $0.0054   ×1.068    ×1.551      1         0
      system_last       system + last block               $0.0050   ×1.000    ×1.451      1         0
      system1h_last     2×1h system + last                $0.0049   ×0.976    ×1.417      1         0
      ide4              tools + system + last 2 messages  $0.0050   ×1.000    ×1.451      1         0
      system2_last2     first 2 system + last 2 messages  $0.0050   ×1.000    ×1.451      1         0
      system_last2user  system + last 2 user messages     $0.0050   ×0.995    ×1.444      1         0
      ideal_5m          ideal bound, 5m writes only       $0.0040   ×0.787    ×1.142      0         0
      ideal             ideal bound                       $0.0035   ×0.689    ×1.000      0         0"
    `);
  });
});

describe('simulationJson', () => {
  it('is plain JSON', () => {
    const json = simulationJson(simulateAll(session, OPTIONS));
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(json.requests[2]).toEqual({ index: 2, at: 2 * MIN, model: 'sim-test', rejected: expect.objectContaining({ status: 400 }) });
  });
});

/**
 * Rendered prompts of the bundled demo session, in the readable snapshot form
 * (one line per block, ①..④ marks, the tail fenced off). Review a diff here
 * like code: every changed line is a changed byte the provider will see.
 */
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const demo = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url));

describe('rendered demo session', async () => {
  const requests = await replayAll(parseTrace(readFileSync(demo, 'utf8'), demo));

  it('has the requests of the trace', () => {
    expect(requests.map((r) => `${r.turn}.${r.round}`)).toMatchInlineSnapshot(`
      [
        "1.1",
        "1.2",
        "1.3",
        "1.4",
        "1.5",
        "1.6",
        "2.1",
        "2.2",
        "2.3",
        "3.1",
        "3.2",
        "3.3",
        "3.4",
        "3.5",
        "3.6",
        "3.7",
      ]
    `);
  });

  for (const index of [0, 5, 6, 10, 15]) {
    it(`renders request ${index}`, () => {
      expect(requests[index]!.rendered).toMatchSnapshot();
    });
  }
});

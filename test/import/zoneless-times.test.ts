/**
 * A proxy written in Python logs `datetime.now().isoformat()` ("2026-03-02T09:00:00.123456") or `str(datetime)`
 * ("2026-03-02 09:00:00"): no zone. Date.parse reads such a time in the importing machine's zone, so the same log
 * gave different traces on different machines (and a DST change inside a session became an hour's idle gap).
 * A time without a zone is read as UTC, with a warning.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { formatImported } from '../../src/import/common.js';
import { importLog } from '../../src/import/formats.js';

const LINES = readFileSync('fixtures/import/messages-log.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Record<string, unknown>);
/** The fixture with its times written without a zone, as `isoformat()` (T) or `str()` (a space) writes them. */
const zoneless = (sep: string): string =>
  LINES.map((l) =>
    JSON.stringify({
      ...l,
      timestamp: String(l.timestamp).replace('Z', '').replace('T', sep),
      response_timestamp: String(l.response_timestamp).replace('Z', '').replace('T', sep),
    }),
  ).join('\n');

const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('importLog: times without a zone', () => {
  it.each(['T', ' '])('reads them as UTC whatever the machine zone (separator %j), with a warning', (sep) => {
    const utc = importLog(LINES.map((l) => JSON.stringify(l)).join('\n'), 'proxy.jsonl');
    for (const tz of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
      process.env.TZ = tz;
      const r = importLog(zoneless(sep), 'proxy.jsonl');
      expect(r.traces.map(formatImported)).toEqual(utc.traces.map(formatImported));
      expect(r.warnings.join('\n')).toMatch(/12 time stamps have no zone \(line 1: "2026-03-02.09:00:00\.000"\): read as UTC/);
    }
  });
});

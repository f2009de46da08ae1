/** `cachepoint report TRACE --out report.html`: the session's cache, request by request, in one self-contained HTML file. */
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidOptionError } from '../../errors.js';
import { buildReportData } from '../../report/data.js';
import { renderReport } from '../../report/render-report.js';
import { toolCacheSavings } from '../../report/tool-savings.js';
import { compareTrace } from '../../replay/compare.js';
import { readTrace } from '../../trace/reader.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions } from '../options.js';
import { progress, usageError } from '../output.js';

export const REPORT_HELP = `Usage: cachepoint report TRACE --out FILE.html [--peer ID] [--title TEXT] [engine options]

Prices TRACE like 'simulate' and writes one self-contained HTML file (no
network, opens from disk): per-request read/written/uncached tokens and cost
under cachepoint and a peer strategy with the ideal bound, the block map of any
request (click it), busts, misses, idle gaps, prunes and compactions with their
price, the totals, and the tool-result cache's savings.

  --out FILE        where to write the HTML (required)
  --peer ID         strategy drawn next to cachepoint (default: the cheapest
                    baseline that caches). IDs as in 'simulate --strategy'.
  --title TEXT      report title (default: the trace's file name)
  --tool-ttl N      tool-cache TTL in turns for the savings table (default 5)
  --generated-at T  time stamp shown in the header (default: now)

${ENGINE_HELP}`;

export async function reportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...ENGINE_FLAGS,
      out: { type: 'string', short: 'o' },
      peer: { type: 'string' },
      title: { type: 'string' },
      'tool-ttl': { type: 'string' },
      'generated-at': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return usageError(REPORT_HELP, 0);
  const file = positionals[0];
  if (!file || !values.out) return usageError(REPORT_HELP);
  const ttl = values['tool-ttl'] === undefined ? 5 : Number(values['tool-ttl']);
  if (!Number.isInteger(ttl) || ttl < 1) throw new InvalidOptionError('--tool-ttl', `must be an integer ≥ 1, got "${values['tool-ttl']}"`);
  const options = engineOptions(values);
  const bar = progress('report');
  const comparison = await compareTrace(() => readTrace(file), options, (n) => bar.tick(n));
  if (values.peer !== undefined && !comparison.runs[values.peer]) {
    throw new InvalidOptionError('--peer', `unknown strategy "${values.peer}"; known: ${Object.keys(comparison.runs).join(', ')}`);
  }
  const tools = await toolCacheSavings(readTrace(file), ttl);
  const data = buildReportData(comparison, {
    title: values.title ?? basename(file),
    policy: options.policy ?? 'conservative',
    ...(values.peer ? { peer: values.peer } : {}),
    ...(tools ? { toolCache: tools } : {}),
  });
  const html = renderReport(data, { generatedAt: values['generated-at'] ?? new Date().toISOString() });
  await writeFile(values.out, html);
  bar.done(`${comparison.engine.length} requests`);
  process.stdout.write(`wrote ${values.out} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB, ${comparison.engine.length} requests)\n`);
  return 0;
}

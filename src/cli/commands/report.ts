/** `cachepoint report TRACE --out report.html`: the session's cache, request by request, in one self-contained HTML file. */
import { basename } from 'node:path';
import { InvalidOptionError } from '../../errors.js';
import { buildReportData } from '../../report/data.js';
import { recordedUsage } from '../../report/recorded.js';
import { renderReport } from '../../report/render-report.js';
import { toolCacheSavings } from '../../report/tool-savings.js';
import { compareTrace } from '../../replay/compare.js';
import { BASELINES } from '../../sim/strategies.js';
import { type CliIo, openOutput, traceSource, warner, writeOut } from '../io.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions, providerFlag } from '../options.js';
import { parseFlags } from '../flags.js';
import { onePositional, progress, usageError } from '../output.js';

export const REPORT_HELP = `Usage: cachepoint report TRACE --out FILE.html [--peer ID] [--provider ID] [--title TEXT] [engine options]

Prices TRACE like 'simulate' and writes one self-contained HTML file (no
network, opens from disk): per-request read/written/uncached tokens and cost
under cachepoint and a peer strategy with the ideal bound, the block map of any
request (click it), busts, misses, idle gaps, prunes and compactions with their
price, the totals, and the tool-result cache's savings.

  --out FILE        where to write the HTML (required)
  --peer ID         strategy drawn next to cachepoint (default: the cheapest
                    baseline that caches). IDs as in 'simulate --strategy'.
  --provider ID     price for anthropic (default), bedrock or openai, as
                    'simulate --provider' does
  --title TEXT      report title (default: the trace's file name)
  --tool-ttl N      tool-cache TTL in turns for the savings table (default 5)
  --generated-at T  time stamp shown in the header (default: now)

${ENGINE_HELP}`;

export async function reportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('report', argv, {
    ...ENGINE_FLAGS,
    out: { type: 'string', short: 'o' },
    peer: { type: 'string' },
    provider: { type: 'string' },
    title: { type: 'string' },
    'tool-ttl': { type: 'string' },
    'generated-at': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return usageError(io, REPORT_HELP, 0);
  const file = onePositional(io, positionals, REPORT_HELP);
  if (typeof file === 'number') return file;
  if (!values.out) return usageError(io, REPORT_HELP, 2, 'missing --out FILE.html (where to write the report)');
  const ttl = values['tool-ttl'] === undefined ? 5 : Number(values['tool-ttl']);
  if (!Number.isInteger(ttl) || ttl < 1) throw new InvalidOptionError('--tool-ttl', `must be an integer ≥ 1, got "${values['tool-ttl']}"`);
  const provider = providerFlag(values);
  // Anthropic and Bedrock share the peer baselines; OpenAI's are its own (checked after pricing).
  const known = ['cachepoint', ...BASELINES.map((b) => b.id)];
  if (provider !== 'openai' && values.peer !== undefined && !known.includes(values.peer)) {
    throw new InvalidOptionError('--peer', `unknown strategy "${values.peer}"; known: ${known.join(', ')}`);
  }
  const options = { ...engineOptions(values), provider, source: file, onWarning: warner(io, 'report') };
  const load = traceSource(io, file);
  // Opened before the work, so a bad --out fails at once naming the path; emptied only when the report is ready.
  const output = await openOutput(io, values.out, { file, what: 'trace' }, { keep: true });
  const bar = progress(io, 'report');
  let html: string;
  let requests: number;
  try {
    const comparison = await compareTrace(load, options, (n) => bar.tick(n));
    if (values.peer !== undefined && !comparison.runs[values.peer]) {
      throw new InvalidOptionError('--peer', `unknown strategy "${values.peer}"; known: ${Object.keys(comparison.runs).join(', ')}`);
    }
    const tools = await toolCacheSavings(load(), ttl);
    // The reader keeps only the format's fields; the reported usage an importer kept is read raw.
    const recorded = recordedUsage(rawLines(await load.text()));
    const data = buildReportData(comparison, {
      title: values.title ?? basename(file),
      policy: options.policy ?? 'conservative',
      provider,
      ...(values.peer ? { peer: values.peer } : {}),
      ...(tools ? { toolCache: tools } : {}),
      ...(recorded ? { recorded } : {}),
    });
    html = renderReport(data, { generatedAt: values['generated-at'] ?? new Date().toISOString() });
    requests = comparison.engine.length;
  } catch (err) {
    // Nothing was written: --out stays as it was (a file this run created is removed, never what was there).
    await output.discard();
    throw err;
  }
  try {
    await output.truncate();
    await writeOut(output.writer, html);
    await output.close();
  } catch (err) {
    // A full disk half-way: no cut-off page is left as if it were the report (a file this run made is removed).
    await output.discard({ written: true });
    throw err;
  }
  bar.done(`${requests} requests`);
  io.stdout.write(`wrote ${values.out} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB, ${requests} requests)\n`);
  return 0;
}

/** The JSON objects of a (validated) trace's lines. */
function* rawLines(text: string): Generator<unknown> {
  for (const line of text.replace(/^\uFEFF/, '').split('\n')) if (line.trim() !== '') yield JSON.parse(line);
}

/** `cachepoint simulate TRACE`: prices the trace under cachepoint and every peer strategy. */
import { InvalidOptionError } from '../../errors.js';
import { compareTrace } from '../../replay/compare.js';
import { formatExplain, formatRequestTable, formatTotals, simulationJson } from '../../sim/format.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions, providerFlag } from '../options.js';
import { parseFlags } from '../flags.js';
import { onePositional, progress, usageError } from '../output.js';
import { type CliIo, traceSource, warner } from '../io.js';

export const SIMULATE_HELP = `Usage: cachepoint simulate TRACE [--provider ID] [--strategy ID] [--explain] [--json] [engine options]

Replays TRACE through cachepoint and through the peer strategies (plain full
history, markers placed their way), prices every request with the provider
cache simulator, and prints a per-request table and the totals.

  --provider ID   price for anthropic (default), bedrock or openai (its cache
                  rules, prices and peers; openai needs --model gpt-…)
  --strategy ID   per-request table for this run (default: cachepoint). IDs:
                  cachepoint none envelope auto system_last system1h_last ide4
                  system2_last2 system_last2user; on openai: openai_default
                  openai_mask10 openai_24h (openai_system_bp on GPT-5.6+)
  --explain       per request: what changed, which point read/wrote, busts
  --json          machine-readable output
  --no-recalls    do not insert the recall rounds that cachepoint's removals
                  force (a later call that needs a pruned payload); by default
                  they are inserted and priced into cachepoint's cost

${ENGINE_HELP}`;

export async function simulateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('simulate', argv, {
    ...ENGINE_FLAGS,
    strategy: { type: 'string', short: 's' },
    explain: { type: 'boolean' },
    json: { type: 'boolean' },
    'no-recalls': { type: 'boolean' },
    provider: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return usageError(io, SIMULATE_HELP, 0);
  const file = onePositional(io, positionals, SIMULATE_HELP);
  if (typeof file === 'number') return file;
  const bar = progress(io, 'simulate');
  const provider = providerFlag(values);
  const result = await compareTrace(
    traceSource(io, file),
    { ...engineOptions(values), provider, recalls: !values['no-recalls'], source: file, onWarning: warner(io, 'simulate') },
    (n) => bar.tick(n),
  );
  bar.done(`${result.engine.length} requests`);
  const id = values.strategy ?? 'cachepoint';
  const run = result.runs[id];
  if (!run) throw new InvalidOptionError('--strategy', `unknown strategy "${id}"; known: ${Object.keys(result.runs).join(', ')}`);
  // The requests after an inserted recall round, with what was recalled (cachepoint's run only).
  const forced = new Map(id === 'cachepoint' ? result.engine.flatMap((r) => (r.forced ? [[r.index, r.forced] as const] : [])) : []);
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ strategy: id, ...simulationJson(run, result.summaries, forced), engineIdeal: result.engineIdeal, recalls: result.recalls })}\n`,
    );
    return 0;
  }
  const marks = new Map([...forced].map(([i, f]) => [i, `RECALL ${f.map((x) => x.path).join(', ')}`]));
  const out = [values.explain ? formatExplain(run) : formatRequestTable(run, marks), '', formatTotals(result.summaries)];
  const engine = result.summaries.find((s) => s.id === 'cachepoint');
  if (engine && result.engineIdeal > 0) {
    out.push('', `cachepoint vs the ideal bound of its own requests: ×${(engine.cost / result.engineIdeal).toFixed(4)}`);
  }
  const r = result.recalls;
  if (r.rounds > 0) {
    const why = Object.entries(r.byReason)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    out.push(
      `forced recalls: ${r.count} payloads in ${r.rounds} extra rounds (${r.per100.toFixed(1)} per 100 requests; removed by ${why}), ` +
        `$${r.cost.toFixed(4)} of cachepoint's cost (the extra requests and ${r.outputTokens} output tokens)`,
    );
  }
  io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

/** `cachepoint demo` (npm start): renders the bundled session and compares strategies. */
import { fileURLToPath } from 'node:url';
import { compareTrace } from '../../replay/compare.js';
import { formatTotals } from '../../sim/format.js';
import { formatRendered } from '../../testing/snapshot.js';
import { type CliIo, traceSource, warner } from '../io.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions } from '../options.js';
import { UsageError, usageError } from '../output.js';
import { parseFlags } from '../flags.js';

export const DEMO_HELP = `Usage: cachepoint demo [TRACE] [engine options]

Replays the bundled example session (or TRACE), prints its last request as
rendered, and compares the simulated cost under cachepoint, the peer
strategies and the ideal bound (what 'npm start' runs).

${ENGINE_HELP}`;

/** The bundled example session (fixtures/demo.jsonl), found from the source or the built file. */
export function demoTrace(): string {
  return fileURLToPath(new URL('../../../fixtures/demo.jsonl', import.meta.url));
}

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('demo', argv, { ...ENGINE_FLAGS, help: { type: 'boolean', short: 'h' } });
  if (values.help) return usageError(io, DEMO_HELP, 0);
  if (positionals.length > 1) throw new UsageError(`expected at most one TRACE, got ${positionals.length}`);
  const file = positionals[0] ?? demoTrace();
  const result = await compareTrace(traceSource(io, file), { ...engineOptions(values), source: file, onWarning: warner(io, 'demo') });
  const last = result.engine.at(-1);
  const out: string[] = [];
  out.push(`cachepoint demo: ${file}`, `${result.engine.length} requests replayed. The last one, as rendered:`, '');
  if (last) out.push(formatRendered(last.rendered, { content: false }), '');
  out.push('Simulated cost of the whole session (provider cache simulator):', '', formatTotals(result.summaries));
  const engine = result.summaries.find((s) => s.id === 'cachepoint');
  if (engine && result.engineIdeal > 0) {
    out.push('', `cachepoint vs the ideal bound of its own requests: ×${(engine.cost / result.engineIdeal).toFixed(4)}`);
  }
  io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

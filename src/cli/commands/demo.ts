/** `cachepoint demo` (npm start): renders the bundled session and compares strategies. */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareTrace } from '../../replay/compare.js';
import { formatTotals } from '../../sim/format.js';
import { formatRendered } from '../../testing/snapshot.js';
import { readTrace } from '../../trace/reader.js';
import { ENGINE_FLAGS, engineOptions } from '../options.js';

/** The bundled example session (fixtures/demo.jsonl), found from the source or the built file. */
export function demoTrace(): string {
  return fileURLToPath(new URL('../../../fixtures/demo.jsonl', import.meta.url));
}

export async function demoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: ENGINE_FLAGS });
  const file = positionals[0] ?? demoTrace();
  const result = await compareTrace(() => readTrace(file), engineOptions(values));
  const last = result.engine.at(-1);
  const out: string[] = [];
  out.push(`cachepoint demo: ${file}`, `${result.engine.length} requests replayed. The last one, as rendered:`, '');
  if (last) out.push(formatRendered(last.rendered), '');
  out.push('Simulated cost of the whole session (provider cache simulator):', '', formatTotals(result.summaries));
  const engine = result.summaries.find((s) => s.id === 'cachepoint');
  if (engine && result.engineIdeal > 0) {
    out.push('', `cachepoint vs the ideal bound of its own requests: ×${(engine.cost / result.engineIdeal).toFixed(4)}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

/** `cachepoint render TRACE [--request K]`: the snapshot form of one request of a trace. */
import { parseArgs } from 'node:util';
import { InvalidOptionError } from '../../errors.js';
import { replay } from '../../replay/replay.js';
import { formatRendered } from '../../testing/snapshot.js';
import { readTrace } from '../../trace/reader.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions } from '../options.js';
import { usageError } from '../output.js';

export const RENDER_HELP = `Usage: cachepoint render TRACE [--request K] [--json] [engine options]

Prints request K of TRACE (0-based; default: the last) in the readable
snapshot form (--json: the Messages API params).

${ENGINE_HELP}`;

export async function renderCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...ENGINE_FLAGS, request: { type: 'string', short: 'r' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return usageError(RENDER_HELP, 0);
  const file = positionals[0];
  if (!file) return usageError(RENDER_HELP);
  const want = values.request === undefined ? undefined : Number(values.request);
  if (want !== undefined && !(Number.isInteger(want) && want >= 0)) {
    throw new InvalidOptionError('--request', `must be an integer ≥ 0, got "${values.request}"`);
  }
  let chosen;
  for await (const r of replay(readTrace(file), engineOptions(values))) {
    chosen = r;
    if (r.index === want) break;
  }
  if (!chosen || (want !== undefined && chosen.index !== want)) {
    throw new InvalidOptionError('--request', `the trace has ${chosen ? chosen.index + 1 : 0} requests`);
  }
  process.stdout.write(`${values.json ? JSON.stringify(chosen.request, null, 2) : formatRendered(chosen.rendered)}\n`);
  return 0;
}

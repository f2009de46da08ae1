/** `cachepoint render TRACE [--request K]`: the snapshot form of one request of a trace. */
import { CachepointError, InvalidOptionError } from '../../errors.js';
import { type ReplayedRequest, replay } from '../../replay/replay.js';
import { formatRendered } from '../../testing/snapshot.js';
import { type CliIo, traceSource, warner } from '../io.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions } from '../options.js';
import { parseFlags } from '../flags.js';
import { onePositional, usageError } from '../output.js';

export const RENDER_HELP = `Usage: cachepoint render TRACE [--request K] [--json] [engine options]

Prints request K of TRACE (0-based; default: the last) in the readable
snapshot form (--json: the Messages API params).

${ENGINE_HELP}`;

export async function renderCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('render', argv, {
    ...ENGINE_FLAGS,
    request: { type: 'string', short: 'r' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return usageError(io, RENDER_HELP, 0);
  const file = onePositional(io, positionals, RENDER_HELP);
  if (typeof file === 'number') return file;
  const want = values.request === undefined ? undefined : Number(values.request);
  if (want !== undefined && !(Number.isInteger(want) && want >= 0)) {
    throw new InvalidOptionError('--request', `must be an integer ≥ 0, got "${values.request}"`);
  }
  const options = { ...engineOptions(values), source: file, onWarning: warner(io, 'render') };
  let chosen: ReplayedRequest | undefined;
  for await (const r of replay(traceSource(io, file)(), options)) {
    chosen = r;
    if (r.index === want) break;
  }
  if (!chosen || (want !== undefined && chosen.index !== want)) {
    // The flag is well formed; the trace is shorter than it asks (exit 1).
    throw new CachepointError('invalid_option', `--request ${want ?? ''}: ${file} has ${chosen ? chosen.index + 1 : 0} requests`.replace(' :', ':'));
  }
  io.stdout.write(`${values.json ? JSON.stringify(chosen.request, null, 2) : formatRendered(chosen.rendered)}\n`);
  return 0;
}

/** `cachepoint replay TRACE [--out FILE]`: one JSON line per request, as toAnthropic produced it. */
import { parseArgs } from 'node:util';
import { replay } from '../../replay/replay.js';
import { type CliIo, type CliWriter, openOutput, traceSource, warner, writeOut } from '../io.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions } from '../options.js';
import { onePositional, progress, usageError } from '../output.js';

export const REPLAY_HELP = `Usage: cachepoint replay TRACE [--out FILE] [engine options]

Renders the request before each model response in TRACE and writes one JSON
line per request: {"index","at","turn","round","request"}.

${ENGINE_HELP}`;

export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...ENGINE_FLAGS, out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return usageError(io, REPLAY_HELP, 0);
  const file = onePositional(io, positionals, REPLAY_HELP);
  if (typeof file === 'number') return file;
  const options = { ...engineOptions(values), source: file, onWarning: warner(io, 'replay') };
  // Opened before the work: a bad --out fails at once, naming the path.
  const output = values.out ? await openOutput(io, values.out) : undefined;
  const out: CliWriter = output?.writer ?? io.stdout;
  const bar = progress(io, 'replay');
  let n = 0;
  try {
    for await (const r of replay(traceSource(io, file)(), options)) {
      await writeOut(out, `${JSON.stringify({ index: r.index, at: r.atIso, turn: r.turn, round: r.round, request: r.request })}\n`);
      bar.tick(++n);
    }
  } catch (err) {
    // The replay's error is the one to report, not a failure to close after it.
    await output?.close().catch(() => undefined);
    throw err;
  }
  await output?.close();
  bar.done(`${n} requests`);
  return 0;
}

/** `cachepoint replay TRACE [--out FILE]`: one JSON line per request, as toAnthropic produced it. */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { replay } from '../../replay/replay.js';
import { readTrace } from '../../trace/reader.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions } from '../options.js';
import { progress, usageError } from '../output.js';

export const REPLAY_HELP = `Usage: cachepoint replay TRACE [--out FILE] [engine options]

Renders the request before each model response in TRACE and writes one JSON
line per request: {"index","at","turn","round","request"}.

${ENGINE_HELP}`;

export async function replayCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...ENGINE_FLAGS, out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return usageError(REPLAY_HELP, 0);
  const file = positionals[0];
  if (!file) return usageError(REPLAY_HELP);
  const out = values.out ? createWriteStream(values.out) : process.stdout;
  const bar = progress('replay');
  let n = 0;
  for await (const r of replay(readTrace(file), engineOptions(values))) {
    const line = `${JSON.stringify({ index: r.index, at: r.atIso, turn: r.turn, round: r.round, request: r.request })}\n`;
    if (!out.write(line)) await once(out, 'drain');
    bar.tick(++n);
  }
  bar.done(`${n} requests`);
  if (out !== process.stdout) {
    out.end();
    await once(out, 'finish');
  }
  return 0;
}

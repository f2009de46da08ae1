/** `cachepoint replay TRACE [--out FILE]`: one JSON line per request, as toAnthropic produced it. */
import { replay } from '../../replay/replay.js';
import { type CliIo, type CliWriter, openOutput, traceSource, warner, writeOut } from '../io.js';
import { ENGINE_FLAGS, ENGINE_HELP, engineOptions, providerFlag } from '../options.js';
import { providerReplayOptions } from '../../replay/compare.js';
import { toProviderRequest } from '../../providers/registry.js';
import { parseFlags } from '../flags.js';
import { onePositional, progress, usageError } from '../output.js';

export const REPLAY_HELP = `Usage: cachepoint replay TRACE [--out FILE] [--provider ID] [engine options]

Renders the request before each model response in TRACE and writes one JSON
line per request: {"index","at","turn","round","request"}, to standard output
or to --out FILE (\`-\`: standard output; TRACE \`-\`: standard input).

  --provider ID      anthropic (Messages params, default), bedrock (Converse
                     input) or openai (Responses params; pass --model gpt-…)
  --cache-key KEY    OpenAI prompt_cache_key for every request

${ENGINE_HELP}`;

export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('replay', argv, {
    ...ENGINE_FLAGS,
    out: { type: 'string', short: 'o' },
    provider: { type: 'string' },
    'cache-key': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return usageError(io, REPLAY_HELP, 0);
  const file = onePositional(io, positionals, REPLAY_HELP);
  if (typeof file === 'number') return file;
  const provider = providerFlag(values);
  const load = traceSource(io, file);
  const options = await providerReplayOptions(provider, load, { ...engineOptions(values), source: file, onWarning: warner(io, 'replay') });
  const key = values['cache-key'];
  // Opened before the work, so a bad --out fails at once naming the path; emptied at the first request.
  // `--out -` is standard output, as `-` is standard input for the trace.
  const output = values.out && values.out !== '-' ? await openOutput(io, values.out, { file, what: 'trace' }, { keep: true }) : undefined;
  const out: CliWriter = output?.writer ?? io.stdout;
  const bar = progress(io, 'replay');
  let n = 0;
  try {
    for await (const r of replay(load(), options)) {
      if (n === 0) await output?.truncate();
      const request = provider === 'anthropic' ? r.request : toProviderRequest(provider, r.rendered, key !== undefined ? { conversationId: key } : {});
      await writeOut(out, `${JSON.stringify({ index: r.index, at: r.atIso, turn: r.turn, round: r.round, request })}\n`);
      bar.tick(++n);
    }
    // A trace with no request wrote nothing: the output is the empty replay, not what the file held before.
    if (n === 0) await output?.truncate();
    // Inside: the last writes can fail only now (a full disk), and must not leave the part written.
    await output?.close();
  } catch (err) {
    // The replay's error is the one to report; no partial --out is left (a file this run made is removed).
    await output?.discard({ written: n > 0 });
    throw err;
  }
  bar.done(`${n} requests`);
  return 0;
}

/** `cachepoint import LOG --out TRACE`: converts a log teams already have into a session trace. */
import { readFile } from 'node:fs/promises';
import { formatImported } from '../../import/common.js';
import { IMPORT_FORMATS, importLog } from '../../import/formats.js';
import { type CliIo, inputPath, type Output, openOutput, refuseOverwritingInput, writeOut } from '../io.js';
import { parseFlags } from '../flags.js';
import { onePositional, usageError, UsageError } from '../output.js';
import { printable } from '../printable.js';

export const IMPORT_HELP = `Usage: cachepoint import LOG [--from FORMAT] [--out TRACE.jsonl]

Converts a log into a session trace (docs/trace-format.md) that simulate,
replay and report read. Formats (detected from the first line when --from is
not given):

${Object.values(IMPORT_FORMATS)
  .map((f) => `  ${f.id.padEnd(14)}${f.description}`)
  .join('\n')}

  --out FILE    where to write the trace (default: stdout). A log with several
                conversations (or subagents, or compactions) gives several
                traces: the first goes to FILE, each other to FILE.<name>.jsonl
  --from ID     the log's format

What the importer filled in or skipped (an estimated envelope, synthetic
times, interrupted calls) is listed on stderr as warnings. See docs/import.md.`;

/** `out.jsonl` + `agent-x` → `out.agent-x.jsonl`. */
function sibling(out: string, name: string): string {
  return out.endsWith('.jsonl') ? `${out.slice(0, -'.jsonl'.length)}.${name}.jsonl` : `${out}.${name}.jsonl`;
}

export async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('import', argv, {
    from: { type: 'string', short: 'f' },
    out: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return usageError(io, IMPORT_HELP, 0);
  const file = onePositional(io, positionals, IMPORT_HELP, 'LOG');
  if (typeof file === 'number') return file;
  const text = await readFile(inputPath(io, file), 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw Object.assign(err, { path: file });
  });
  const result = importLog(text, file, values.from);
  if (result.traces.length > 1 && !values.out) {
    throw new UsageError(`${file} holds ${result.traces.length} traces (${result.traces.map((t) => t.name).join(', ')}): give --out FILE to write them`);
  }
  const base = values.out;
  const names = base === undefined ? [] : result.traces.map((t, k) => (k === 0 ? base : sibling(base, t.name)));
  for (const out of names) await refuseOverwritingInput(io, file, out, 'log');
  for (const w of result.warnings) io.stderr.write(`cachepoint import: warning: ${printable(w)}\n`);
  if (!values.out) {
    io.stdout.write(formatImported(result.traces[0]!));
    return 0;
  }
  // All or nothing: every output is opened (without emptying) before any is written, and a failure takes back
  // what this run wrote, so a log's traces are never left half imported.
  const outputs: Output[] = [];
  let written = 0;
  try {
    for (const out of names) outputs.push(await openOutput(io, out, undefined, { keep: true }));
    for (const [k, t] of result.traces.entries()) {
      const output = outputs[k]!;
      await output.truncate();
      written = k + 1;
      await writeOut(output.writer, formatImported(t));
      await output.close();
    }
  } catch (err) {
    await Promise.all(outputs.map((o, k) => o.discard({ written: k < written })));
    throw err;
  }
  for (const [k, t] of result.traces.entries()) {
    const requests = t.events.filter((e) => e.type === 'assistant').length;
    io.stdout.write(`wrote ${names[k]} (${t.name}: ${requests} requests, ${t.events.length} events, from ${result.format})\n`);
  }
  return 0;
}

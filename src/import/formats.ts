/**
 * The import formats by `--from` name, and {@link importLog}, which reads a
 * file's text with one of them (or the one whose `detect` accepts the first
 * line). To add a format, see docs/import.md: write an {@link ImportFormat}
 * (lines in, traces out, through TraceBuilder) and add it here.
 */
import { InvalidOptionError } from '../errors.js';
import { isObj, parseLines } from './common.js';
import { claudeCode } from './claude-code.js';
import { ImportError } from './errors.js';
import { messagesLog } from './messages-log.js';
import type { ImportFormat, ImportResult } from './types.js';

export const IMPORT_FORMATS: Readonly<Record<string, ImportFormat>> = Object.freeze({
  [messagesLog.id]: messagesLog,
  [claudeCode.id]: claudeCode,
});

/**
 * Converts a log's text into traces.
 *
 * @param from a key of {@link IMPORT_FORMATS}; detected from the first line when absent
 * @throws {ImportError} naming `file:line` for a line the format cannot read, when no format fits, or when the
 *   text is already a cachepoint trace (its first line an envelope event)
 * @throws {InvalidOptionError} for an unknown `from`
 *
 * @example
 * const { traces, warnings } = importLog(readFileSync('proxy.jsonl', 'utf8'), 'proxy.jsonl');
 * writeFileSync('session.jsonl', formatImported(traces[0]));
 */
export function importLog(text: string, file: string, from?: string): ImportResult & { readonly format: string } {
  const known = Object.keys(IMPORT_FORMATS).join(', ');
  let incomplete: number | undefined;
  const lines = parseLines(
    text,
    file,
    (line) => {
      incomplete = line;
    },
    `: import reads JSON Lines logs (${known})`,
  );
  let format = from === undefined ? undefined : IMPORT_FORMATS[from];
  if (from !== undefined && !format) {
    throw new InvalidOptionError('--from', `unknown format "${from}"; known: ${known}`);
  }
  const first = lines[0];
  // What import writes, given back to it (whatever --from says: neither format starts with an envelope event).
  if (first && isTrace(first.value)) {
    throw new ImportError(
      file,
      first.line,
      'already a cachepoint trace (its first line is an envelope event): nothing to import; read it directly with simulate, replay or report',
    );
  }
  if (!format) {
    if (!first) throw new ImportError(file, 1, 'empty file: nothing to import');
    format = Object.values(IMPORT_FORMATS).find((f) => f.detect(first.value));
    if (!format) {
      throw new ImportError(file, first.line, `not a format I know (${known}); name it with --from`);
    }
  }
  const result = format.convert(lines, file);
  const note = `line ${incomplete} is cut short (no newline at the end, not valid JSON: is the log still being written?): left out`;
  return { ...result, warnings: incomplete === undefined ? result.warnings : [...result.warnings, note], format: format.id };
}

/** A cachepoint trace's first line (docs/trace-format.md): an envelope event. */
function isTrace(first: unknown): boolean {
  return isObj(first) && first.type === 'envelope';
}

/**
 * Reading a trace file from disk (Node only: the core entry stays free of
 * Node built-ins, so this is exported by `cachepoint/node`). The parsers
 * live in parse.ts and are re-exported here for callers that read files.
 */
export { MAX_NESTING, parseTrace, TraceLineParser } from './parse.js';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { TraceLineParser } from './parse.js';
import type { TraceEvent } from './types.js';

/**
 * Streams a trace file: events are yielded as their lines are read, so memory
 * holds one line plus the open tool_use ids, whatever the file size.
 *
 * @param file path of the `.jsonl` file; also the name used in error messages
 * @param options.name the name error messages use instead of `file` (e.g. the path as the user typed it)
 * @throws {TraceParseError} when a line breaks a rule (events before it have been yielded)
 * @throws a Node system error (`code`, `syscall`, `path`) when the file cannot be opened or read,
 *   including `EISDIR` for a directory
 *
 * @example
 * for await (const event of readTrace('fixtures/coding.jsonl')) {
 *   if (event.type === 'assistant') console.log(event.atIso);
 * }
 */
export async function* readTrace(file: string, options: { readonly name?: string } = {}): AsyncGenerator<TraceEvent, void, undefined> {
  const name = options.name ?? file;
  // Opening first turns a missing file into an ordinary rejected promise (ENOENT)
  // instead of a stream error that readline would surface late; it names the file as `name` (as typed).
  const handle = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    throw Object.assign(err, { path: name });
  });
  // A directory opens fine on Linux and fails on the first read with an EISDIR that names no path.
  // Checked before readline starts: lines it emits before the loop below begins would be lost.
  const isDirectory = await handle.stat().then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (isDirectory) {
    await handle.close().catch(() => undefined);
    throw systemError('EISDIR', 'read', name, 'illegal operation on a directory');
  }
  const lines = createInterface({ input: handle.createReadStream({ encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  const parser = new TraceLineParser(name);
  try {
    for await (const line of lines) {
      const e = parser.push(line);
      if (e !== undefined) yield e;
    }
    parser.end();
  } catch (err) {
    // Read errors from the stream carry no path: say which file.
    const sys = err as NodeJS.ErrnoException;
    if (sys instanceof Error && typeof sys.code === 'string' && sys.syscall && !sys.path) sys.path = name;
    throw err;
  } finally {
    lines.close();
    await handle.close().catch(() => undefined);
  }
}

function systemError(code: string, syscall: string, path: string, text: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, syscall, path });
}

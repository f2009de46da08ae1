/**
 * What a CLI run touches of the outside world, passed in so the CLI runs the
 * same in a process (bin.ts) and in a test (in memory): two writers, the
 * working directory relative paths resolve against, and the environment.
 */
import { once } from 'node:events';
import { lstat, open, readFile, rm, stat, truncate } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { InvalidOptionError } from '../errors.js';
import { parseTrace } from '../trace/parse.js';
import { readTrace } from '../trace/reader.js';
import type { TraceEvent } from '../trace/types.js';
import { printable } from './printable.js';

/** A place to write text (process.stdout, a file stream, a test's buffer). */
export interface CliWriter {
  /** Returns false when the caller should wait for {@link CliWriter.drain} (streams); plain buffers return true. */
  write(chunk: string): boolean;
  /** Present on streams: resolves when a writer that said "false" can take more (rejects if it failed). */
  drain?(): Promise<void>;
  /** Whether it is a terminal (progress lines are drawn only then). */
  readonly isTTY?: boolean;
}

/** The outside world of one CLI run. */
export interface CliIo {
  readonly stdout: CliWriter;
  readonly stderr: CliWriter;
  /** Relative TRACE and --out paths resolve against this. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The real process: its stdout, stderr, cwd and environment. */
export function processIo(): CliIo {
  return { stdout: streamWriter(process.stdout), stderr: streamWriter(process.stderr), cwd: process.cwd(), env: process.env };
}

/** A writer over a Node stream (stdout, stderr, a file). */
export function streamWriter(stream: NodeJS.WritableStream & { readonly isTTY?: boolean }): CliWriter {
  return {
    write: (chunk) => stream.write(chunk),
    drain: async () => {
      await once(stream as NodeJS.EventEmitter, 'drain');
    },
    isTTY: stream.isTTY === true,
  };
}

/** Resolves a path the user typed against the run's working directory. */
export function resolvePath(io: CliIo, file: string): string {
  return isAbsolute(file) ? file : resolve(io.cwd, file);
}

/** An input's path: `-` is standard input, as in every Unix tool (read through /dev/stdin, a pipe traceSource keeps). */
export function inputPath(io: CliIo, file: string): string {
  return file === '-' ? '/dev/stdin' : resolvePath(io, file);
}

/** Writes and, when a stream asks for it, waits for `drain` (memory stays flat on long replays). */
export async function writeOut(out: CliWriter, text: string): Promise<void> {
  if (!out.write(text) && out.drain) await out.drain();
}

/** A TRACE argument: its events, read afresh on each call, and its whole text. */
export interface TraceSource {
  (): AsyncGenerator<TraceEvent, void, undefined>;
  /** The file's text (report reads the raw lines for what the log reported). */
  text(): Promise<string>;
}

/**
 * The events of a TRACE argument, read afresh on each call (relative to `io.cwd`; errors name it as typed).
 * A pipe (`/dev/stdin`, a FIFO, `<(…)`) can be read only once, and simulate and report read the trace
 * more than once: its text is kept from the first read (a second read found it empty: "empty trace").
 */
export function traceSource(io: CliIo, file: string): TraceSource {
  const path = inputPath(io, file);
  let kept: Promise<string> | undefined;
  /** The kept text of a pipe; undefined for a file (or a missing path or a directory, whose errors readTrace names). */
  const piped = async (): Promise<Promise<string> | undefined> => {
    if (kept === undefined) {
      const info = await stat(path).catch(() => undefined);
      if (info === undefined || info.isFile() || info.isDirectory()) return undefined;
      kept = readFile(path, 'utf8');
    }
    return kept;
  };
  async function* events(): AsyncGenerator<TraceEvent, void, undefined> {
    const text = await piped();
    if (text === undefined) return yield* readTrace(path, { name: file });
    yield* parseTrace(await text, file);
  }
  return Object.assign(events, {
    text: async () =>
      (await piped()) ??
      readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw Object.assign(err, { path: file });
      }),
  });
}

/** A warning from the engine during a command: one line on stderr. */
export function warner(io: CliIo, command: string): (message: string) => void {
  return (message) => {
    io.stderr.write(`cachepoint ${command}: warning: ${printable(message.replace(/\s*\n\s*/g, ' '))}\n`);
  };
}

/**
 * Refuses an output file that is the input itself (the same path, a link to it): report and replay open (truncate)
 * their output before reading, and import writes over what it read, so the input would be lost.
 */
export async function refuseOverwritingInput(io: CliIo, input: string, out: string, what: string): Promise<void> {
  const [a, b] = await Promise.all([inputPath(io, input), resolvePath(io, out)].map((f) => stat(f).catch(() => undefined)));
  if (a?.isFile() && b !== undefined && a.dev === b.dev && a.ino === b.ino) {
    throw new InvalidOptionError('--out', `"${out}" is the ${what} being read (${input}); writing it would destroy it: choose another file`, { value: out });
  }
}

/** An output opened by {@link openOutput}. */
export interface Output {
  readonly writer: CliWriter;
  close(): Promise<void>;
  /**
   * With `keep`: empties a regular file before the first write (a FIFO or a device has nothing to empty). Without
   * `keep` the file was emptied when it was opened.
   */
  truncate(): Promise<void>;
  /**
   * After a failure, with `keep`: closes, and removes the file only if this run created it (nothing was there
   * before). Whatever the path named before (a previous file, a link, a FIFO, /dev/null) stays as it was, unless
   * `written`: then a regular file there is emptied (part of an output is not left as if it were the whole).
   */
  discard(options?: { readonly written?: boolean }): Promise<void>;
}

/**
 * Opens an output file before any work is done, so a directory, a missing
 * folder or a read-only place is one error up front (with the path), never an
 * unhandled stream 'error' event later. With `keep`, the file is opened without
 * emptying it (for a command that writes only once its work succeeded: a
 * failure then leaves the path as it found it, see {@link Output.discard}).
 */
export async function openOutput(
  io: CliIo,
  file: string,
  input?: { readonly file: string; readonly what: string },
  { keep = false }: { readonly keep?: boolean } = {},
): Promise<Output> {
  if (input) await refuseOverwritingInput(io, input.file, file, input.what);
  const path = resolvePath(io, file);
  const existed = (await lstat(path).catch(() => undefined)) !== undefined;
  // 'a' creates a missing file but empties nothing; every write goes to the end (the start, once truncated).
  const handle = await open(path, keep ? 'a' : 'w').catch((err: NodeJS.ErrnoException) => {
    throw Object.assign(err, { path: file });
  });
  const stream = handle.createWriteStream({ encoding: 'utf8' });
  let failure: NodeJS.ErrnoException | undefined;
  // Recorded here, surfaced by the next write or by close(): a stream 'error' never goes unhandled.
  stream.on('error', (err: NodeJS.ErrnoException) => {
    failure ??= Object.assign(err, { path: err.path ?? file });
  });
  const close = async (): Promise<void> => {
    stream.end();
    try {
      await finished(stream);
    } catch (err) {
      throw failure ?? Object.assign(err as NodeJS.ErrnoException, { path: file });
    }
    if (failure) throw failure;
  };
  return {
    async truncate() {
      if ((await handle.stat()).isFile()) await handle.truncate(0);
    },
    async discard({ written = false } = {}) {
      await close().catch(() => undefined);
      if (existed) {
        if (written && (await stat(path).catch(() => undefined))?.isFile()) await truncate(path, 0).catch(() => undefined);
        return;
      }
      // Created by this run: a regular file (a FIFO or a device node is never one we made).
      const now = await lstat(path).catch(() => undefined);
      if (now?.isFile()) await rm(path, { force: true }).catch(() => undefined);
    },
    close,
    writer: {
      write(chunk) {
        if (failure) throw failure;
        return stream.write(chunk);
      },
      async drain() {
        if (failure) throw failure;
        await once(stream, 'drain');
      },
    },
  };
}

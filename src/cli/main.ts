/**
 * The `cachepoint` command line: render | replay | simulate | demo, as a
 * function: {@link main} takes the arguments and the outside world
 * ({@link CliIo}) and returns the exit status. It never throws and never prints
 * a stack trace: an error is one line naming what is wrong and where
 * (`file:line` when there is one), exit 1; a usage error (unknown command or
 * flag, a missing or extra TRACE) prints the usage, exit 2. `bin.ts` runs it
 * for a real process; tests call it in memory.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CachepointError, UnknownModelError } from '../errors.js';
import { demoCommand } from './commands/demo.js';
import { importCommand } from './commands/import.js';
import { renderCommand } from './commands/render.js';
import { replayCommand } from './commands/replay.js';
import { reportCommand } from './commands/report.js';
import { simulateCommand } from './commands/simulate.js';
import { type CliIo, processIo } from './io.js';
import { UsageError } from './output.js';
import { printable } from './printable.js';

export type { CliIo, CliWriter } from './io.js';

const HELP = `Usage: cachepoint <command> [options]

Commands:
  render TRACE      print one rendered request of a trace (snapshot form)
  replay TRACE      write the request before every model response, one JSON line each
  simulate TRACE    price the trace under cachepoint and the peer strategies
  report TRACE      write a self-contained HTML report of the session's cache
  import LOG        convert a request/response log or a Claude Code transcript into a trace
  demo              render the bundled example session and compare strategies

Run 'cachepoint <command> --help' for a command's options; 'cachepoint --version' prints the version.
Exit status: 0 ok, 1 an error (bad input, bad option value, I/O), 2 a usage error.`;

/** A command: parsed argv in, exit status out; writes only through `io`. */
export type Command = (argv: string[], io: CliIo) => Promise<number>;

/** The commands by name (other commands register here). */
export const COMMANDS: Record<string, Command> = {
  render: renderCommand,
  replay: replayCommand,
  simulate: simulateCommand,
  report: reportCommand,
  import: importCommand,
  demo: demoCommand,
};

/** parseArgs codes that mean the command line itself is malformed (usage, exit 2). */
const USAGE_CODES = new Set(['ERR_PARSE_ARGS_UNKNOWN_OPTION', 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL']);

/**
 * Runs the CLI once.
 *
 * @param argv the arguments after the program name (`process.argv.slice(2)`)
 * @param io where output goes, which directory relative paths resolve against
 * @returns the exit status (0 ok, 1 error, 2 usage error)
 *
 * @example
 * const out: string[] = [];
 * const w = { write: (s: string) => (out.push(s), true) };
 * const code = await main(['replay', 'fixtures/demo.jsonl'], { stdout: w, stderr: w, cwd: process.cwd(), env: {} });
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    io.stdout.write(`cachepoint ${packageVersion()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h') {
    (name ? io.stdout : io.stderr).write(`${HELP}\n`);
    return name ? 0 : 2;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(`cachepoint: unknown command "${name}"\n\n${HELP}\n`);
    return 2;
  }
  try {
    return await command(rest, io);
  } catch (err) {
    const { status, message } = describeError(err, io);
    io.stderr.write(`cachepoint ${name}: ${printable(message)}\n`);
    return status;
  }
}

/**
 * The version of the installed package: the nearest package.json named
 * cachepoint above this file (dist/cli/ when installed, src/cli/ in the repo,
 * the bundle `npm start` builds under node_modules/.cache/).
 */
function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'cachepoint' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: keep going up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

/**
 * A flag written wrong, not a value refused: `--out` last with its value forgotten ("argument missing") or a value
 * given to a switch (`--json=yes`, "does not take an argument"). parseArgs gives these the code of a bad value
 * (ERR_PARSE_ARGS_INVALID_OPTION_VALUE), so its message tells them apart; a value that looks like a flag
 * (`--pre-tail-offset -1`, "argument is ambiguous") stays exit 1, as does any wording parseArgs may change to.
 */
function malformedFlag(code: string, message: string): boolean {
  return code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /(?:argument missing|does not take an argument)$/.test(message);
}

/** One line and an exit status for anything a command threw. */
export function describeError(err: unknown, io: Pick<CliIo, 'env'>): { status: number; message: string } {
  const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ');
  if (err instanceof UsageError) return { status: 2, message: oneLine(err.message) };
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    const message = (err as Error).message;
    return { status: USAGE_CODES.has(code) || malformedFlag(code, message) ? 2 : 1, message: `${oneLine(message)} (see --help)` };
  }
  // The library's fix (a custom profile in render options) is code; the CLI's is a flag.
  if (err instanceof UnknownModelError && err.provider !== undefined) {
    const { provider, model, known } = err;
    return { status: 1, message: `--provider ${provider}: the model "${model}" has no ${provider} profile; pass --model with one of ${known.join(', ')}` };
  }
  if (err instanceof CachepointError) return { status: 1, message: oneLine(err.message) };
  // A file that cannot be opened, read or written is the user's input, not a crash.
  const sys = err as NodeJS.ErrnoException;
  if (sys instanceof Error && typeof sys.code === 'string' && typeof sys.syscall === 'string') {
    const what = sys.path ?? (sys as { file?: string }).file;
    return { status: 1, message: `cannot ${sys.syscall}${what ? ` ${what}` : ''}: ${sys.code}${errnoHint(sys.code)}` };
  }
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return { status: 1, message: 'the input is nested too deeply to process (stack overflow)' };
  }
  // A bug of ours: still one line; the stack only on request.
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const stack = io.env.CACHEPOINT_DEBUG && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  return { status: 1, message: `internal error: ${oneLine(text)} (please report it; CACHEPOINT_DEBUG=1 prints the stack)${stack}` };
}

function errnoHint(code: string): string {
  switch (code) {
    case 'ENOENT':
      return ' (no such file or directory)';
    case 'EISDIR':
      return ' (it is a directory)';
    case 'ENOTDIR':
      return ' (a part of the path is not a directory)';
    case 'EACCES':
    case 'EPERM':
      return ' (permission denied)';
    default:
      return '';
  }
}

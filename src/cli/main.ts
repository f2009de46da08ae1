#!/usr/bin/env node
/**
 * The `cachepoint` command line: render | replay | simulate | demo.
 * Errors print one clear line (what and where) and exit 1; usage errors exit 2.
 */
import { CachepointError } from '../errors.js';
import { demoCommand } from './commands/demo.js';
import { renderCommand } from './commands/render.js';
import { replayCommand } from './commands/replay.js';
import { simulateCommand } from './commands/simulate.js';

const HELP = `Usage: cachepoint <command> [options]

Commands:
  render TRACE      print one rendered request of a trace (snapshot form)
  replay TRACE      write the request before every model response, one JSON line each
  simulate TRACE    price the trace under cachepoint and the peer strategies
  demo              render the bundled example session and compare strategies

Run 'cachepoint <command> --help' for a command's options.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  render: renderCommand,
  replay: replayCommand,
  simulate: simulateCommand,
  demo: demoCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(`${HELP}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`cachepoint: unknown command "${name}"\n\n${HELP}\n`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof CachepointError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`cachepoint ${name}: ${(err as Error).message}\n`);
      return 1;
    }
    // A file that cannot be opened is the user's input, not a crash: one line, no stack.
    const io = err as NodeJS.ErrnoException;
    if (io.syscall && io.path && io.code) {
      process.stderr.write(`cachepoint ${name}: cannot ${io.syscall} ${io.path}: ${io.code}\n`);
      return 1;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cachepoint: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);

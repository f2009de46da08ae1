/** Small output helpers: usage errors and a progress line on stderr (only on a terminal). */
import type { CliIo } from './io.js';

/** Prints usage and returns the exit code (2 = usage error; 0 = asked for help: stdout). */
export function usageError(io: CliIo, help: string, code = 2, reason?: string): number {
  // The command's name is in its usage line (`Usage: cachepoint report TRACE …`).
  const command = /^Usage: (cachepoint \S+)/.exec(help)?.[1] ?? 'cachepoint';
  (code === 0 ? io.stdout : io.stderr).write(reason ? `${command}: ${reason}\n\n${help}\n` : `${help}\n`);
  return code;
}

/** What each kind of positional is, for the line that says it is missing. */
const MISSING: Readonly<Record<string, string>> = {
  TRACE: 'missing TRACE (a trace file; `cachepoint import LOG` makes one from your logs)',
  LOG: 'missing LOG (a request/response log or a Claude Code transcript)',
};

/** A single `\r` status line on stderr when it is a terminal; silent otherwise (CI logs stay clean). */
export function progress(io: CliIo, label: string): { tick(n: number): void; done(summary: string): void } {
  const tty = io.stderr.isTTY === true;
  let last = 0;
  return {
    tick(n) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      io.stderr.write(`\r${label}: ${n} requests…`);
    },
    done(summary) {
      if (tty) io.stderr.write(`\r${label}: ${summary}\x1b[K\n`);
    },
  };
}

/** The command line itself is malformed (a missing or extra TRACE): exit 2 with the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The single TRACE positional of a command: none prints the usage (2); more than one is refused (2). */
export function onePositional(io: CliIo, positionals: readonly string[], help: string, what = 'TRACE'): string | number {
  if (positionals.length === 0) return usageError(io, help, 2, MISSING[what] ?? `missing ${what}`);
  if (positionals.length > 1) {
    throw new UsageError(`expected one ${what}, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(' ')}`);
  }
  return positionals[0]!;
}

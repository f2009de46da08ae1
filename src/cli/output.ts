/** Small output helpers: usage errors and a progress line on stderr (only on a terminal). */

/** Prints usage and returns the exit code (2 = usage error). */
export function usageError(help: string, code = 2): number {
  (code === 0 ? process.stdout : process.stderr).write(`${help}\n`);
  return code;
}

/** A single `\r` status line on stderr when it is a terminal; silent otherwise (CI logs stay clean). */
export function progress(label: string): { tick(n: number): void; done(summary: string): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return {
    tick(n) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      process.stderr.write(`\r${label}: ${n} requests…`);
    },
    done(summary) {
      if (tty) process.stderr.write(`\r${label}: ${summary}\x1b[K\n`);
    },
  };
}

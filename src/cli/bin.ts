#!/usr/bin/env node
/** The `cachepoint` executable: runs {@link main} for this process and sets the exit status. */
import { processIo } from './io.js';
import { main } from './main.js';

// `cachepoint replay T | head`: the reader left; stop quietly instead of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // main() answers every error itself; this is the last net, still one line.
    process.stderr.write(`cachepoint: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);

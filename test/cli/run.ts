/**
 * Runs the CLI in process ({@link cli}: `main(argv, io)` with in-memory writers)
 * or a TypeScript entry point as a real child process ({@link runNode}: the
 * entry bundled once with esbuild, then `node BUNDLE ...`, cwd = repository
 * root), the way a user runs `npx cachepoint` (plain JavaScript) or
 * `npm run example`. Non-zero exits are results, not throws.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliWriter } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { bundled } from '../helpers/bundle.js';

/** The repository root (this file is test/cli/run.ts). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished child process left behind. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns are under a second each on a quiet 2-core box; the margin covers a loaded one. */
export const SPAWN_TIMEOUT_MS = 60_000;

/**
 * Runs the TypeScript file `entry` (relative to the repository root) with node, from the repository root.
 * The entry is bundled first (test/helpers/bundle.ts): the same source compiled by the same esbuild as
 * `tsx` would, without tsx's loader transpiling every module again in each child (about a second of CPU).
 */
export async function runNode(entry: string, args: readonly string[] = []): Promise<RunResult> {
  const file = await bundled(join(ROOT, entry));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [file, ...args],
      // FORCE_COLOR/TTY off: output must be the plain bytes a pipe gets.
      { cwd: ROOT, timeout: SPAWN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          // Spawn failure or timeout (signal): not an exit status of the program under test.
          reject(new Error(`${entry} ${args.join(' ')} did not exit normally: ${err.message}\n${stderr}`));
          return;
        }
        resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the `cachepoint` executable as a child process under a file-size limit of `kib` KiB (RLIMIT_FSIZE, with
 * SIGXFSZ ignored so a write past it fails with EFBIG): a full disk, reproducibly and unprivileged. Linux (bash).
 */
export async function spawnCliLimited(kib: number, ...args: string[]): Promise<RunResult> {
  const file = await bundled(join(ROOT, 'src/cli/bin.ts'));
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', `trap '' XFSZ; ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, file, ...args],
      { cwd: ROOT, timeout: SPAWN_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') reject(new Error(`cachepoint ${args.join(' ')} did not exit normally: ${err.message}\n${stderr}`));
        else resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs the `cachepoint` executable (src/cli/bin.ts) as a child process: for the smoke tests. */
export function spawnCli(...args: string[]): Promise<RunResult> {
  return runNode('src/cli/bin.ts', args);
}

/** A writer that keeps what it is given (not a terminal). */
export function memoryWriter(): CliWriter & { text(): string } {
  const chunks: string[] = [];
  return {
    write(chunk) {
      chunks.push(chunk);
      return true;
    },
    text: () => chunks.join(''),
  };
}

/**
 * Runs the `cachepoint` CLI in this process through `main(argv, io)`, from the
 * repository root, with the same result shape as a child process: exit status,
 * stdout and stderr. A throw out of main() is a test failure (main must answer
 * every error with a status).
 */
export async function cli(...args: string[]): Promise<RunResult> {
  return cliIn(ROOT, ...args);
}

/** {@link cli} with another working directory. */
export async function cliIn(cwd: string, ...args: string[]): Promise<RunResult> {
  const stdout = memoryWriter();
  const stderr = memoryWriter();
  const code = await main(args, { stdout, stderr, cwd, env: { NO_COLOR: '1' } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

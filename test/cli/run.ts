/**
 * Runs a TypeScript entry point of the repository as a real child process
 * (`node --import tsx FILE ...`, cwd = repository root), the way a user runs
 * `npx cachepoint` or `npm run example`. Non-zero exits are results, not throws.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/cli/run.ts). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished child process left behind. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns are ~1 s each on a quiet 2-core box; the margin covers a loaded one. */
export const SPAWN_TIMEOUT_MS = 60_000;

/** Runs `node --import tsx <entry> ...args` from the repository root. */
export function runNode(entry: string, args: readonly string[] = []): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', entry, ...args],
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

/** Runs the `cachepoint` CLI (src/cli/main.ts). */
export function cli(...args: string[]): Promise<RunResult> {
  return runNode('src/cli/main.ts', args);
}

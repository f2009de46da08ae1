/**
 * Test helper: a private `redis-server` child process on a free loopback port,
 * with no persistence, that a test can stop, restart (same port, empty data:
 * what a crash of a cache server looks like) or freeze (SIGSTOP: a server that
 * accepts nothing and answers nothing, i.e. "slow").
 *
 * Tests use `REDIS_URL` (set by .ci/run) when it is there and they do not
 * disturb the server; fault tests always start their own.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServerHandle {
  readonly url: string;
  readonly port: number;
  /** Whether this handle owns the process (false for an external REDIS_URL). */
  readonly owned: boolean;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** Starts (again) on the same port; data from before is gone. */
  start(): Promise<void>;
  /** Stops for good and removes the data directory (afterAll). */
  destroy(): Promise<void>;
  /** SIGSTOP / SIGCONT. */
  freeze(): void;
  thaw(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr !== null ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Whether the redis-server listening on `port` is the process `pid`. Not just any answer: between a stop and a
 * restart on the same port, another process (the other vitest worker, another job on the machine) may have taken
 * the port, and a test must fail loudly rather than run against someone else's server.
 */
async function answersAs(port: number, pid: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    let buf = '';
    const done = (ok: boolean): void => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(300, () => done(false));
    sock.on('error', () => done(false));
    sock.on('data', (d) => {
      buf += d.toString();
      const m = /process_id:(\d+)\r\n/.exec(buf);
      if (m) done(Number(m[1]) === pid);
    });
    sock.connect(port, '127.0.0.1', () => sock.write('INFO server\r\n'));
  });
}

/** Spawns a private redis-server (on `port`, or a free one). */
export async function startRedisServer(options: { readonly port?: number; readonly start?: boolean } = {}): Promise<RedisServerHandle> {
  if (options.port !== undefined || options.start === false) return serverOn(options.port ?? (await freePort()), options.start !== false);
  // freePort() finds a port that was free a moment ago; another process may bind it before redis-server does: try another.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await serverOn(await freePort(), true);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function serverOn(port: number, startNow: boolean): Promise<RedisServerHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'cachepoint-redis-'));
  let proc: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc = child;
    // Its log (stdout) says why it stopped, e.g. "bind: Address already in use".
    let log = '';
    const collect = (d: Buffer): void => {
      log = (log + d.toString()).slice(-2000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const spawnError = new Promise<never>((_, reject) =>
      child.once('error', (e) =>
        reject(new Error(`cannot start redis-server (${e.message}): install it (apt install redis-server, or brew install redis) or set REDIS_URL`)),
      ),
    );
    const ready = (async () => {
      for (let i = 0; i < 100; i += 1) {
        if (child.exitCode !== null) {
          const message = `redis-server exited with ${child.exitCode} on port ${port}: ${log.trim().split('\n').slice(-2).join(' / ')}`;
          throw /already in use/i.test(log) ? new PortTakenError(message) : new Error(message);
        }
        if (child.pid !== undefined && (await answersAs(port, child.pid))) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`redis-server did not answer on port ${port}`);
    })();
    await Promise.race([ready, spawnError]);
  };

  const stop = async (): Promise<void> => {
    const p = proc;
    proc = undefined;
    if (p === undefined || p.exitCode !== null) return;
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    p.kill('SIGCONT');
    p.kill('SIGTERM');
    await exited;
  };

  if (startNow) {
    try {
      await start();
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    owned: true,
    stop,
    start,
    freeze: () => proc?.kill('SIGSTOP'),
    thaw: () => proc?.kill('SIGCONT'),
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The CI server when `REDIS_URL` is set, otherwise a private one. Call `release()` in afterAll. */
export async function sharedRedis(): Promise<{ readonly url: string; release(): Promise<void> }> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv !== undefined && fromEnv !== '') return { url: fromEnv, release: async () => undefined };
  const server = await startRedisServer();
  return { url: server.url, release: () => server.destroy() };
}

/** A namespace no other test (or earlier run against the same server) uses. */
export function uniqueNamespace(label: string): string {
  return `test-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

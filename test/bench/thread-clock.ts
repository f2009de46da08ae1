/**
 * The CPU time of the calling thread, for benches that time one step of a loop: `process.cpuUsage()` is the
 * process's, so V8's helper threads (concurrent marking, the scavenger's helpers, the optimizing compiler) are
 * billed to whichever step they ran beside (a step's process CPU can exceed its wall time). Node ≥ 23.9 has
 * `process.threadCpuUsage()`; on older Node, with BENCH_THREAD_CLOCK=1, a ten-line N-API addon reading
 * CLOCK_THREAD_CPUTIME_ID is compiled with the system's C compiler against Node's own headers (into the temp
 * directory, once per process). Without either: undefined, and the bench keeps the process clock.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ADDON = `#include <node_api.h>
#include <time.h>
static napi_value Now(napi_env env, napi_callback_info info) {
  struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  napi_value v; napi_create_double(env, (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec, &v); return v;
}
static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn; napi_create_function(env, "now", NAPI_AUTO_LENGTH, Now, NULL, &fn);
  napi_set_named_property(env, exports, "now", fn); return exports;
}
NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
`;

/** Which clock {@link threadClock} found: for the bench's header line. */
export let threadClockName = 'process CPU (process.cpuUsage: every thread of the process)';

/** The calling thread's CPU time in ns (µs resolution on Node's API, ns with the addon), or undefined when there is no such clock here. */
export function threadClock(): (() => number) | undefined {
  const p = process as unknown as { threadCpuUsage?: () => { user: number; system: number } };
  if (typeof p.threadCpuUsage === 'function') {
    threadClockName = 'thread CPU (process.threadCpuUsage)';
    return () => {
      const u = p.threadCpuUsage!();
      return (u.user + u.system) * 1000;
    };
  }
  if (!process.env.BENCH_THREAD_CLOCK) return undefined;
  const headers = join(dirname(process.execPath), '..', 'include', 'node');
  const include = existsSync(join(headers, 'node_api.h')) ? headers : '/usr/include/node';
  try {
    const dir = mkdtempSync(join(tmpdir(), 'thread-clock-'));
    writeFileSync(join(dir, 'clock.c'), ADDON);
    execFileSync(process.env.CC ?? 'cc', ['-O2', '-shared', '-fPIC', `-I${include}`, '-o', join(dir, 'clock.node'), join(dir, 'clock.c')], { stdio: 'pipe' });
    const addon = createRequire(import.meta.url)(join(dir, 'clock.node')) as { now: () => number };
    threadClockName = 'thread CPU (CLOCK_THREAD_CPUTIME_ID, BENCH_THREAD_CLOCK)';
    return addon.now;
  } catch (err) {
    process.stderr.write(`BENCH_THREAD_CLOCK: no thread clock (${(err as Error).message.split('\n')[0]}); process CPU instead\n`);
    return undefined;
  }
}

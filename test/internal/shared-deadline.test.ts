/**
 * SharedDeadline: one timer for many operations with the same time limit
 * (the Redis adapter's per-command timeout). Fake timers and an injected
 * clock: nothing here waits on the wall clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SharedDeadline } from '../../src/internal/timeout.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SharedDeadline', () => {
  it('settles like the operation when it is in time, and rejects each late one at its own deadline', async () => {
    vi.useFakeTimers();
    const d = new SharedDeadline(500, 'Redis did not answer within 500 ms', () => Date.now());
    const fast = deferred<string>();
    const slow1 = deferred<string>();
    const a = d.run(fast.promise);
    const b = d.run(slow1.promise);
    vi.advanceTimersByTime(200);
    const slow2 = deferred<string>();
    const c = d.run(slow2.promise);
    const outcomes: string[] = [];
    b.catch((e: Error) => outcomes.push(`b: ${e.message}`));
    c.catch((e: Error) => outcomes.push(`c: ${e.message}`));
    fast.resolve('ok');
    expect(await a).toBe('ok');
    expect(vi.getTimerCount()).toBe(1); // one timer for three operations
    await vi.advanceTimersByTimeAsync(300); // t = 500: b is late, c (started at 200) is not
    expect(outcomes).toEqual(['b: Redis did not answer within 500 ms']);
    await vi.advanceTimersByTimeAsync(199);
    expect(outcomes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // t = 700: c is late
    expect(outcomes).toEqual(['b: Redis did not answer within 500 ms', 'c: Redis did not answer within 500 ms']);
    // A late answer changes nothing; no timer is left armed.
    slow1.resolve('late');
    expect(vi.getTimerCount()).toBe(0);
    expect(d.pending).toBe(0);
  });

  it('passes rejections through, re-arms only for what is still pending, and close() clears the timer', async () => {
    vi.useFakeTimers();
    const d = new SharedDeadline(100, 'late', () => Date.now());
    const failing = deferred<never>();
    const p = d.run(failing.promise);
    failing.reject(new Error('ECONNRESET'));
    await expect(p).rejects.toThrow('ECONNRESET');
    await vi.advanceTimersByTimeAsync(100); // fires once, finds nothing pending, does not re-arm
    expect(vi.getTimerCount()).toBe(0);
    const hung = deferred<number>();
    const q = d.run(hung.promise);
    q.catch(() => undefined);
    expect(vi.getTimerCount()).toBe(1);
    d.close();
    expect(vi.getTimerCount()).toBe(0);
    hung.resolve(7);
    expect(await q).toBe(7);
  });

  it('keeps its queue small when operations settle in time, however many there are', async () => {
    const d = new SharedDeadline(60_000);
    for (let i = 0; i < 5000; i++) await d.run(Promise.resolve(i));
    expect(d.pending).toBe(0);
    const hung = d.run(new Promise(() => undefined));
    hung.catch(() => undefined);
    expect(d.pending).toBe(1);
    d.close();
  });
});

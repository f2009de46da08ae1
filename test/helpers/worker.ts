/**
 * A child process that answers requests over IPC, for multi-process tests: it
 * is forked from a bundle of `entry` (see bundled.ts), says `{ event: 'ready' }`
 * once it can take requests, answers each `{ id, … }` with `{ id, ok, value }`
 * or `{ id, ok: false, error }`, and exits on `{ op: 'stop' }`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { bundled } from './bundle.js';

export interface RpcWorker {
  readonly pid: number;
  /** Sends `message` with a fresh id and resolves with the child's `value` (rejects with its `error`). */
  call<T>(message: object): Promise<T>;
  /** Asks the child to stop and resolves when it has exited. */
  stop(): Promise<void>;
}

/** Forks the bundled `entry` with `init` as its one argument (JSON) and waits until it is ready. */
export async function spawnRpcWorker(entry: string, init: object): Promise<RpcWorker> {
  const child: ChildProcess = fork(await bundled(entry), [JSON.stringify(init)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited early with ${String(code)}`)));
    child.on('message', (raw) => {
      const m = raw as { event?: string; id?: number; ok?: boolean; value?: unknown; error?: string };
      if (m.event === 'ready') resolve();
      else if (m.id !== undefined) {
        const p = pending.get(m.id)!;
        pending.delete(m.id);
        if (m.ok) p.resolve(m.value);
        else p.reject(new Error(m.error));
      }
    });
  });
  return {
    pid: child.pid!,
    call: <T>(message: object) =>
      new Promise<T>((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ ...message, id });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ op: 'stop' });
      }),
  };
}

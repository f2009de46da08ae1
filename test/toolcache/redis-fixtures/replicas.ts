/** Parent side of the multi-process tests: spawns worker.ts replicas and talks to them over IPC. */

import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundled } from '../../helpers/bundle.js';
import type { ReadReply, WorkerInit } from './worker.js';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export interface Replica {
  readonly pid: number;
  read(path: string, n?: number, options?: { gate?: boolean }): Promise<ReadReply>;
  write(path: string, content: string): Promise<{ status: unknown; ms: number }>;
  stats(): Promise<{ runs: number; store: Record<string, number | boolean>; cache: unknown }>;
  leased(): Promise<boolean>;
  /** Resolves when the gated Read on `path` has read its value (returns that value). */
  toolRead(path: string): Promise<string>;
  proceed(path: string): void;
  warnings(): readonly string[];
  signal(sig: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export async function spawnReplica(init: WorkerInit): Promise<Replica> {
  const child: ChildProcess = fork(await bundled(WORKER), [JSON.stringify(init)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, Pending>();
  const toolReads = new Map<string, (v: string) => void>();
  const earlyReads = new Map<string, string>();
  const warnings: string[] = [];
  let nextId = 0;
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`replica exited early with ${String(code)}`)));
    child.on('message', (raw) => {
      const m = raw as { id?: number; ok?: boolean; value?: unknown; error?: string; event?: string; path?: string; value_?: string; code?: string };
      if (m.event === 'ready') resolve();
      else if (m.event === 'warning') warnings.push(String(m.code));
      else if (m.event === 'tool-read') {
        const path = String(m.path);
        const value = String((m as { value?: unknown }).value);
        const waiter = toolReads.get(path);
        if (waiter !== undefined) {
          toolReads.delete(path);
          waiter(value);
        } else earlyReads.set(path, value);
      } else if (m.id !== undefined) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.ok) p?.resolve(m.value);
        else p?.reject(new Error(m.error));
      }
    });
  });
  await ready;
  const request = <T>(msg: Record<string, unknown>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ ...msg, id });
    });
  return {
    pid: child.pid ?? -1,
    read: (path, n = 1, options = {}) => request<ReadReply>({ op: 'read', path, n, gate: options.gate === true }),
    write: (path, content) => request({ op: 'write', path, content }),
    stats: () => request({ op: 'stats' }),
    leased: () => request<boolean>({ op: 'leased' }),
    toolRead: (path) => {
      const early = earlyReads.get(path);
      if (early !== undefined) {
        earlyReads.delete(path);
        return Promise.resolve(early);
      }
      return new Promise((resolve) => toolReads.set(path, resolve));
    },
    proceed: (path) => child.send({ op: 'proceed', path }),
    warnings: () => warnings,
    signal: (sig) => child.kill(sig),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGCONT');
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * `npm run bench`: runs every bench module in test/bench (each default-exports
 * `async () => Row[]`) and prints one aligned `name | value | unit | baseline`
 * table per module. Every figure is a ratio against (or sits next to) a
 * baseline measured in the same run: the machines are shared and noisy, so
 * absolute numbers are only context, never pass/fail.
 *
 * `npm run bench -- render cost` runs a subset (module names without `.ts`).
 * A module that throws is reported and the run continues; the exit code is
 * then 1.
 */
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchModule } from './util.js';
import { formatRows } from './util.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const NOT_BENCHES = new Set(['run', 'util']);

function modules(): string[] {
  return readdirSync(HERE)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('_'))
    .map((f) => f.slice(0, -3))
    .filter((m) => !NOT_BENCHES.has(m))
    .sort();
}

async function main(argv: readonly string[]): Promise<number> {
  const all = modules();
  const wanted = argv.filter((a) => !a.startsWith('-'));
  const unknown = wanted.filter((w) => !all.includes(w));
  if (unknown.length > 0) {
    console.error(`bench: unknown module ${unknown.map((u) => `"${u}"`).join(', ')}; known: ${all.join(', ')}`);
    return 2;
  }
  const run = wanted.length > 0 ? all.filter((m) => wanted.includes(m)) : all;
  const cpu = cpus();
  console.log(
    `cachepoint bench — Node ${process.version}, ${new Date().toISOString()}, ${process.platform}/${process.arch}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}`,
  );
  console.log(`modules: ${run.join(', ')}`);
  let failed = 0;
  for (const name of run) {
    const t0 = performance.now();
    console.log(`\n## ${name}`);
    try {
      const mod = (await import(pathToFileURL(`${HERE}${name}.ts`).href)) as BenchModule;
      const rows = await mod.default();
      console.log(formatRows(rows));
      const extra = mod.details?.();
      if (extra) console.log(`\n${extra}`);
    } catch (err) {
      failed++;
      console.log(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    console.log(`(${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));

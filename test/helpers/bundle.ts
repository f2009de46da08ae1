/**
 * Child processes for multi-process tests, started as plain JavaScript: the
 * TypeScript entry is bundled once per test file with esbuild (our sources
 * inlined, packages left as imports) and forked with no loader. Forking with
 * `--import tsx` costs each child about a second and a half of CPU to transpile
 * the same modules again; the bundle costs one build for all of them.
 *
 * The bundle is the same source compiled by the same esbuild that tsx uses, so
 * the children run the code under test unchanged.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Inside node_modules, so the bundle's bare imports resolve to the project's packages. */
const OUT = join(ROOT, 'node_modules', '.cache', 'cachepoint-test-bundles');

const built = new Map<string, Promise<string>>();

/** The path of a runnable `.mjs` bundle of the TypeScript file `entry` (absolute), built at most once per process. */
export function bundled(entry: string): Promise<string> {
  let out = built.get(entry);
  if (out === undefined) {
    // Per process and entry: parallel test files never write the same file.
    const tag = createHash('sha256').update(`${entry}\0${process.pid}`).digest('hex').slice(0, 12);
    const outfile = join(OUT, `${basename(entry, '.ts')}-${tag}.mjs`);
    mkdirSync(OUT, { recursive: true });
    out = build({
      entryPoints: [entry],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile,
      logLevel: 'warning',
    }).then(() => outfile);
    built.set(entry, out);
  }
  return out;
}

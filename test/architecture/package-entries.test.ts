/**
 * Every entry point resolves under every TypeScript module resolution: `exports`
 * serves node16/nodenext/bundler, and `types` + `typesVersions` serve the old
 * `moduleResolution: node` (node10), which ignores `exports`. Without the
 * mirror a new subpath compiles for some users and is "Cannot find module" for
 * others (test/consumer/resolution.consumer.ts compiles and runs each case).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { codeEntries } from '../helpers/package-exports.js';

const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string } | string>;
  types: string;
  typesVersions: Record<string, Record<string, string[]>>;
};

it('typesVersions mirrors every subpath of exports (node10 resolution), and types the root', () => {
  expect(pkg.types).toBe((pkg.exports['.'] as { types: string }).types);
  const mirrored = Object.fromEntries(
    codeEntries()
      .filter(([k]) => k !== '.')
      .map(([k, v]) => [k.slice(2), [v.types]]),
  );
  expect(pkg.typesVersions).toEqual({ '*': mirrored });
});

it('package.json itself is exported as is (tools read the installed version), and is the only file entry', () => {
  expect(pkg.exports['./package.json']).toBe('./package.json');
  expect(Object.keys(pkg.exports).filter((k) => typeof pkg.exports[k] === 'string')).toEqual(['./package.json']);
});

/**
 * `cachepoint --help` says "Run 'cachepoint <command> --help' for a command's options": every command answers it
 * with its usage on stdout, exit 0.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { cli } from './run.js';

describe('cachepoint <command> --help', () => {
  it.each(Object.keys(COMMANDS))('%s --help prints its usage on stdout, exit 0', async (name) => {
    for (const flag of ['--help', '-h']) {
      const r = await cli(name, flag);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: cachepoint ${name}\\b`));
    }
  });
});

/**
 * Session's option values, as prepare's (test/conversation/option-values.test.ts): `diagnostics: 'yes'` was taken
 * as true (truthy) and asked the API for diagnostics; now an InvalidOptionError naming `diagnostics` and the value.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { Session } from '../../src/session/session.js';

describe('Session refuses option values it cannot take', () => {
  for (const diagnostics of ['yes', 1, null]) {
    it(`diagnostics: ${JSON.stringify(diagnostics)}`, () => {
      let err: unknown;
      try {
        new Session({ model: 'claude-sonnet-4-6', instructions: [], diagnostics: diagnostics as never });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe('diagnostics');
      expect((err as Error).message).toContain(JSON.stringify(diagnostics));
    });
  }
  it('true, false and absent still go through', () => {
    for (const diagnostics of [true, false]) expect(() => new Session({ model: 'claude-sonnet-4-6', instructions: [], diagnostics })).not.toThrow();
    expect(() => new Session({ model: 'claude-sonnet-4-6', instructions: [] })).not.toThrow();
  });
});

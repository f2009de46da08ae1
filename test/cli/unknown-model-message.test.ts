/**
 * describeError's words for an unknown model (cli/main.ts): under --provider the CLI names its own fix (--model with
 * that provider's models); an unknown model with no provider keeps the library's message, which names no flag.
 */
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/main.js';
import { UnknownModelError } from '../../src/errors.js';

const io = { env: {} };

describe('describeError: an unknown model', () => {
  it('under a provider: the CLI fix, with that provider’s models', () => {
    const d = describeError(new UnknownModelError('claude-sonnet-4-6', ['gpt-5', 'gpt-5-mini'], undefined, 'openai'), io);
    expect(d).toEqual({
      status: 1,
      message: '--provider openai: the model "claude-sonnet-4-6" has no openai profile; pass --model with one of gpt-5, gpt-5-mini',
    });
  });

  it('with no provider: the library’s message as one line, no --provider named', () => {
    const err = new UnknownModelError('claude-sonet-4-6', ['claude-sonnet-4-6'], undefined, undefined, 'Did you mean "claude-sonnet-4-6"?');
    const d = describeError(err, io);
    expect(d.status).toBe(1);
    expect(d.message).toBe(err.message);
    expect(d.message).not.toContain('--provider');
  });
});

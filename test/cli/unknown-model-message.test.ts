/**
 * describeError's words for an unknown model (cli/main.ts): under --provider the CLI names its own fix (--model with
 * that provider's models); an unknown model with no provider keeps the library's message, which names no flag.
 */
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/main.js';
import { UnknownModelError } from '../../src/errors.js';
import { cli } from './run.js';

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

describe('the CLI: --model names an OpenAI model without --provider openai', () => {
  // The library's hint (render with OPENAI_MODELS[…], map with toOpenAIResponses) is code; the CLI's fix is a flag.
  for (const args of [
    ['simulate', 'fixtures/demo.jsonl', '--model', 'gpt-5.4'],
    ['simulate', 'fixtures/demo.jsonl', '--provider', 'bedrock', '--model', 'gpt-5.4'],
    ['replay', 'fixtures/demo.jsonl', '--model', 'gpt-5.6-terra'],
    ['render', 'fixtures/demo.jsonl', '--model', 'gpt-5.4'],
  ]) {
    it(`cachepoint ${args.join(' ')}: names --provider openai, and no library code`, async () => {
      const r = await cli(...args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const model = args.at(-1)!;
      expect(r.stderr).toBe(
        `cachepoint ${args[0]}: --model: "${model}" is an OpenAI model: add --provider openai (simulate, replay and report take it); without it the trace is rendered for Claude\n`,
      );
    });
  }

  it('with --provider openai it runs', async () => {
    const r = await cli('simulate', 'fixtures/demo.jsonl', '--provider', 'openai', '--model', 'gpt-5.4');
    expect(r.code).toBe(0);
  });
});

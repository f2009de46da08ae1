/** Bedrock, Vertex and alias model ids resolve to the right profile; unknown ids say how to fix them. */
import { describe, expect, it } from 'vitest';
import { UnknownModelError } from '../../src/errors.js';
import { canonicalModelId, resolveProfile } from '../../src/models/profiles.js';

describe('model ids of every platform', () => {
  const cases: [string, string][] = [
    // Amazon Bedrock: plain, dated with version suffix, cross-region inference profiles
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4'],
    ['eu.anthropic.claude-opus-4-1-20250805-v1:0', 'claude-opus-4-1'],
    ['apac.anthropic.claude-3-5-sonnet-20241022-v2:0', 'claude-3-5-sonnet'],
    ['global.anthropic.claude-sonnet-4-6', 'claude-sonnet-4-6'],
    ['us-gov.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet'],
    ['anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5'],
    // Google Vertex AI
    ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet'],
    ['claude-haiku-4-5@20251001', 'claude-haiku-4-5'],
    ['claude-sonnet-4-6', 'claude-sonnet-4-6'],
    // Aliases
    ['claude-3-7-sonnet-latest', 'claude-3-7-sonnet'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['claude-sonnet-4-0', 'claude-sonnet-4'],
    ['claude-opus-4-0', 'claude-opus-4'],
    // The API's own, unchanged
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5'],
  ];
  for (const [id, profile] of cases) {
    it(`${id} → ${profile}`, () => {
      expect(resolveProfile(id).id).toBe(profile);
    });
  }

  it('reads ids without guessing beyond the platform syntax', () => {
    expect(canonicalModelId('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5-20250929');
    expect(canonicalModelId('claude-opus-4-1@20250805')).toBe('claude-opus-4-1-20250805');
    expect(canonicalModelId('claude-opus-4-1')).toBe('claude-opus-4-1');
  });

  it('an unknown id still fails, naming what it was read as and the fix', () => {
    const err = (() => {
      try {
        resolveProfile('us.anthropic.claude-9-ultra-v1:0');
      } catch (e) {
        return e as UnknownModelError;
      }
    })()!;
    expect(err).toBeInstanceOf(UnknownModelError);
    expect(err.canonical).toBe('claude-9-ultra');
    expect(err.message).toMatch(/read as "claude-9-ultra".*customProfile/);
    expect(() => resolveProfile('gpt-4o')).toThrow(/unknown model "gpt-4o"\. Known/);
  });

  it('custom profiles are found by the id as given', () => {
    const p = { ...resolveProfile('claude-sonnet-4-6'), id: 'arn:aws:bedrock:us-east-1:1:application-inference-profile/abc' };
    expect(resolveProfile(p.id, { [p.id]: p })).toBe(p);
  });
});

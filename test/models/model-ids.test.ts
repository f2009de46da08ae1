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
    // Bedrock ARNs that name the model: a cross-region inference profile, a foundation model (no account)
    ['arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku'],
    ['arn:aws-us-gov:bedrock:us-gov-west-1:123456789012:inference-profile/us-gov.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet'],
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
    expect(() => resolveProfile('gpt-4o')).toThrow(/unknown model "gpt-4o"\. /);
  });

  const unknown = (id: string) => {
    try {
      resolveProfile(id);
    } catch (e) {
      return e as UnknownModelError;
    }
    throw new Error(`${id} resolved`);
  };

  it('a misspelled id names the known one it is closest to, never another version', () => {
    expect(unknown('claude-sonet-4-6').message).toContain('Did you mean "claude-sonnet-4-6"?');
    expect(unknown('us.anthropic.claude-sonet-4-5-20250929-v1:0').message).toContain('Did you mean "claude-sonnet-4-5"?');
    expect(unknown('claude-sonnet-4-7').message).not.toContain('Did you mean');
    expect(unknown('claude-3-haiku-20240307').message).not.toContain('Did you mean');
  });

  it('an OpenAI id says where OpenAI models go; an application inference profile ARN says how to name its model', () => {
    expect(unknown('gpt-4o').message).toMatch(/an OpenAI model.*OPENAI_MODELS.*toOpenAIResponses/);
    expect(unknown('o3-mini').message).toMatch(/an OpenAI model/);
    expect(unknown('chatgpt-4o-latest').message).toMatch(/an OpenAI model/);
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3';
    expect(unknown(arn).message).toMatch(/application inference profile.*does not name its model.*resolveProfile\('claude-sonnet-4-5'\)/);
  });

  it("a Bedrock model of another provider (Nova, Llama, Mistral, …) says the profiles are Claude's and how to pass one", () => {
    for (const id of ['amazon.nova-pro-v1:0', 'us.meta.llama3-3-70b-instruct-v1:0', 'mistral.mistral-large-2407-v1:0']) {
      expect(unknown(id).message).toMatch(/a Bedrock model of another provider.*Claude.*customProfile/);
    }
    expect(unknown('claude-sonet-4-6').message).not.toMatch(/another provider/);
  });

  it('a provisioned, custom or imported model ARN (opaque: it names no model) says how to name its model', () => {
    // docs.aws.amazon.com/bedrock/latest/userguide/prov-thru-use.html: "Specify the provisioned model ARN as the modelId"
    for (const arn of [
      'arn:aws:bedrock:us-east-1:123456789012:provisioned-model/abcd1234efgh',
      'arn:aws:bedrock:us-east-1:123456789012:custom-model-deployment/x1y2z3',
      'arn:aws:bedrock:us-east-1:123456789012:imported-model/m1n2o3',
    ]) {
      expect(unknown(arn).message, arn).toMatch(/does not name its model.*resolveProfile\('claude-sonnet-4-5'\)/);
    }
  });

  it('custom profiles are found by the id as given', () => {
    const p = { ...resolveProfile('claude-sonnet-4-6'), id: 'arn:aws:bedrock:us-east-1:1:application-inference-profile/abc' };
    expect(resolveProfile(p.id, { [p.id]: p })).toBe(p);
  });
});

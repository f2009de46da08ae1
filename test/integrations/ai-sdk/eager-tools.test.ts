/**
 * Whether the wrapped provider sends `eager_input_streaming` on a streamed call's tools (src/integrations/ai-sdk/
 * eager-tools.ts). The V3 case (ai 6: 3.0.0 to 3.0.70 send no flag, 3.0.71+ do) runs with the real packages in
 * test/consumer/ai-sdk-versions.consumer.ts; here the probe is checked against the installed provider's own request
 * builder (a V3-labelled view of it, so the probe runs), and a model that cannot be asked keeps the guess.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { describe, expect, it } from 'vitest';
import { streamsEagerTools } from '../../../src/integrations/ai-sdk/eager-tools.js';
import type { WrappedModel } from '../../../src/integrations/ai-sdk/types.js';

const model = () => createAnthropic({ apiKey: 'test' })('claude-sonnet-4-6');
/** The same model object seen as a V3 one: its prototype's `getArgs` is what the probe asks. */
const asV3 = (m: object, own: Record<string, unknown> = {}) => Object.assign(Object.create(m), { specificationVersion: 'v3', ...own }) as WrappedModel;

describe('streamsEagerTools', () => {
  it('V4 (@ai-sdk/anthropic 4.x) adds the flag, V2 never does: decided by the specification', async () => {
    expect(await streamsEagerTools(model())).toBe(true);
    expect(await streamsEagerTools(Object.assign(Object.create(model()), { specificationVersion: 'v2' }) as WrappedModel)).toBe(false);
  });

  it("a V3 model is asked through its own request builder: the installed provider's answer", async () => {
    expect(await streamsEagerTools(asV3(model()))).toBe(true);
    // A builder that sends no flag (as 3.0.0 to 3.0.70 do) is read as such, and asked once per model object.
    let asked = 0;
    const plain = asV3(model(), {
      getArgs: async () => {
        asked++;
        return { args: { tools: [{ name: 'probe', input_schema: { type: 'object', properties: {} } }] } };
      },
    });
    expect(await streamsEagerTools(plain)).toBe(false);
    expect(await streamsEagerTools(plain)).toBe(false);
    expect(asked).toBe(1);
  });

  it('a V3 model that cannot be asked (no builder, a builder that throws or answers another shape) keeps the guess', async () => {
    expect(await streamsEagerTools(asV3({ provider: 'x', modelId: 'y' }))).toBe(true);
    expect(await streamsEagerTools(asV3(model(), { getArgs: async () => Promise.reject(new Error('renamed')) }))).toBe(true);
    expect(await streamsEagerTools(asV3(model(), { getArgs: async () => ({ args: {} }) }))).toBe(true);
  });
});

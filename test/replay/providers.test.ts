import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { providerProfile } from '../../src/providers/registry.js';
import { maskedRecalls } from '../../src/replay/masked-recalls.js';
import { replayAll } from '../../src/replay/replay.js';
import { readTrace } from '../../src/trace/reader.js';
import { cli } from '../cli/run.js';

const FIXTURES = ['coding', 'volatile-tail', 'fanout'] as const;
const CASES = [
  { provider: 'bedrock', model: undefined },
  { provider: 'openai', model: 'gpt-5.4' },
  { provider: 'openai', model: 'gpt-5.6-terra' },
] as const;

describe('compareTrace on other providers', () => {
  for (const { provider, model } of CASES) {
    for (const fixture of FIXTURES) {
      it(`prices ${fixture} on ${provider}${model ? ` (${model})` : ''}: nothing refused, no dearer than the best peer that keeps the whole history`, async () => {
        const result = await compareTrace(() => readTrace(`fixtures/${fixture}.jsonl`), { provider, ...(model ? { model } : {}), recalls: false });
        const ours = result.summaries.find((s) => s.id === 'cachepoint')!;
        const peers = result.summaries.filter((s) => s.id !== 'cachepoint' && !s.id.startsWith('ideal') && s.id !== 'none');
        for (const s of result.summaries) expect(s.rejected, s.id).toBe(0);
        expect(ours.busts).toBe(0);
        // Peers that send the whole history force no recall: cachepoint (conservative, which prunes nothing while
        // warm) is no dearer than the best of them. A masking peer (openai_mask10) drops tool outputs later calls
        // need; the simulator charges no peer for recalls, so where it is cheaper, it is because it forces them
        // (counted with cachepoint's own rules, src/replay/recalls.ts).
        const masking = new Set(['openai_mask10']);
        const best = Math.min(...peers.filter((s) => !masking.has(s.id)).map((s) => s.cost));
        expect(ours.cost).toBeLessThanOrEqual(best * 1.0001);
        if (peers.some((s) => masking.has(s.id) && s.cost < ours.cost)) {
          const forced = maskedRecalls(await replayAll(readTrace(`fixtures/${fixture}.jsonl`), { plain: true }), 10);
          expect(forced.per100, 'a cheaper masking peer forces recalls').toBeGreaterThan(2);
        }
        // Priced on the provider's own request bytes: OpenAI requests carry that provider's model id.
        if (model) expect(result.engine.every((r) => r.rendered.model === model)).toBe(true);
        if (provider === 'openai') expect(peers.map((s) => s.id)).toContain('openai_mask10');
      });
    }
  }
});

describe('cachepoint simulate / replay --provider', () => {
  it('names the provider, the id and the fix a CLI user has (--model) when the model has no profile there', async () => {
    const r = await cli('simulate', 'fixtures/coding.jsonl', '--provider', 'openai');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--provider openai: the model "claude-sonnet-4-6" has no openai profile; pass --model with one of gpt-');
    // The library's fix (a custom profile in render options) is code a CLI user cannot pass.
    expect(r.stderr).not.toContain('customProfile');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("the library's error names the library's fix, not a CLI flag", () => {
    expect(() => providerProfile('openai', 'claude-sonnet-4-6')).toThrow(
      /openai has no profile for model "claude-sonnet-4-6"\. Known openai models: .*\. Choose one, or pass a custom profile: customProfile\("claude-sonnet-4-6", \{ provider: "openai"/,
    );
    expect(() => providerProfile('openai', 'claude-sonnet-4-6')).not.toThrow(/--model/);
  });

  it("refuses a --model the user typed that no profile knows, with what it most likely is (the trace's own unknown model only warns)", async () => {
    const typo = await cli('simulate', 'fixtures/demo.jsonl', '--model', 'claude-sonet-4-6');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('--model: unknown model "claude-sonet-4-6". Did you mean "claude-sonnet-4-6"?');
    expect(typo.stderr).not.toMatch(/\n\s+at /);
    const openai = await cli('render', 'fixtures/demo.jsonl', '--model', 'gpt-4o');
    expect(openai.code).toBe(1);
    expect(openai.stderr).toContain('--model: "gpt-4o" is an OpenAI model: add --provider openai');
    for (const ok of ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-opus-4-1@20250805']) {
      expect((await cli('render', 'fixtures/demo.jsonl', '--model', ok)).code, ok).toBe(0);
    }
    expect((await cli('simulate', 'fixtures/demo.jsonl', '--provider', 'bedrock', '--model', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).code).toBe(0);
  });

  it('refuses an unknown provider as a usage error naming the flag', async () => {
    const r = await cli('simulate', 'fixtures/coding.jsonl', '--provider', 'azure');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--provider: must be one of anthropic, bedrock, openai, got "azure"');
  });

  it("writes that provider's requests", async () => {
    const openai = await cli('replay', 'fixtures/demo.jsonl', '--provider', 'openai', '--model', 'gpt-5.6-terra', '--cache-key', 'demo');
    expect(openai.code).toBe(0);
    const first = JSON.parse(openai.stdout.split('\n')[0]!) as { request: { model: string; input: unknown[]; prompt_cache_key: string } };
    expect(first.request.model).toBe('gpt-5.6-terra');
    expect(Array.isArray(first.request.input)).toBe(true);
    expect(first.request.prompt_cache_key).toBe('demo');
    const bedrock = await cli('replay', 'fixtures/demo.jsonl', '--provider', 'bedrock');
    const req = JSON.parse(bedrock.stdout.split('\n').at(-2)!) as { request: { messages: unknown[]; system: unknown[] } };
    expect(JSON.stringify(req.request.system)).toContain('"cachePoint"');
  });
});

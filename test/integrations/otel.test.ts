/**
 * cachepoint/otel with the real SDK's in-memory exporter: one inference span
 * per rendered request with the GenAI usage attributes and the plan's
 * prediction, one execute_tool span per tool call with its cache status.
 */
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { cachepointTelemetry } from '../../src/integrations/otel/index.js';
import { replayAll } from '../../src/replay/replay.js';
import { simulateAll } from '../../src/sim/simulator.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { fileTag } from '../../src/toolcache/policy.js';
import { readTrace } from '../../src/trace/reader.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const telemetry = cachepointTelemetry({ tracer: provider.getTracer('cachepoint-test') });
afterEach(() => exporter.reset());

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();

describe('cachepointTelemetry: request spans', () => {
  it('records one chat span per request: GenAI usage (cached input counted in input_tokens), the plan, and predicted vs reported reads', async () => {
    const requests = await replayAll(readTrace('fixtures/demo.jsonl'));
    const sim = simulateAll(requests.map((r) => ({ at: r.at, params: r.request })));
    for (const [i, r] of requests.slice(0, 6).entries()) {
      const span = telemetry.request(r.rendered, { conversationId: 'conv-1' });
      const s = sim[i]!;
      if (s.rejected) throw new Error('the demo is valid');
      span.end({ usage: { ...s.usage, output_tokens: 50 }, id: `msg_${i}`, model: r.request.model, stopReason: 'tool_use' });
      span.end(); // idempotent
    }
    const got = spans();
    expect(got).toHaveLength(6);
    const second = got[1]!;
    const r = requests[1]!.rendered;
    const u = (sim[1] as Extract<(typeof sim)[number], { rejected: null }>).usage;
    expect(second.name).toBe('chat claude-sonnet-4-6');
    expect(second.kind).toBe(SpanKind.CLIENT);
    expect(second.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.conversation.id': 'conv-1',
      'gen_ai.response.id': 'msg_1',
      'gen_ai.response.finish_reasons': ['tool_use'],
      'gen_ai.usage.input_tokens': u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
      'gen_ai.usage.cache_read.input_tokens': u.cache_read_input_tokens,
      'gen_ai.usage.cache_creation.input_tokens': u.cache_creation_input_tokens,
      'gen_ai.usage.output_tokens': 50,
      'cachepoint.turn': 1,
      'cachepoint.round': 2,
      'cachepoint.plan.cache_read.input_tokens': r.plan.usage.cache_read_input_tokens,
      'cachepoint.plan.bust': false,
      'cachepoint.read_delta_tokens': u.cache_read_input_tokens - r.plan.usage.cache_read_input_tokens,
      'cachepoint.miss': false,
    });
    expect(second.attributes['cachepoint.cache_points']).toEqual(r.cachePoints.map((p) => expect.stringContaining(p.path)));
    expect(second.attributes['cachepoint.cache_points']).toMatchInlineSnapshot(`
      [
        "0 5m envelope/tools/TodoWrite",
        "1 5m envelope/skills",
        "4 5m turns/1/rounds/1/results/toolu_01JrHz5fkviVrAtTsyIL0yaE",
      ]
    `);
    expect(second.attributes['cachepoint.plan.cost_usd']).toBeCloseTo(r.plan.cost, 12);
    expect(second.attributes['cachepoint.reported.cost_usd']).toBeCloseTo((sim[1] as { cost: { total: number } }).cost.total, 12);
    // The first request has no previous one: nothing predicted to be read.
    expect(got[0]!.attributes['cachepoint.plan.cache_read.input_tokens']).toBe(0);
  });

  it('flags a read below the prediction as a miss, and a failed request as an error', async () => {
    const [, second] = await replayAll(readTrace('fixtures/demo.jsonl'));
    const r = second!.rendered;
    telemetry.request(r).end({ usage: { input_tokens: r.tokens.total, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } });
    telemetry.request(r).fail(Object.assign(new Error('overloaded'), { code: 'overloaded_error' }));
    const [missed, failed] = spans();
    expect(missed!.attributes).toMatchObject({ 'cachepoint.miss': true, 'cachepoint.read_delta_tokens': -r.plan.usage.cache_read_input_tokens });
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'overloaded' });
    expect(failed!.attributes['error.type']).toBe('overloaded_error');
    expect(failed!.events.map((e) => e.name)).toEqual(['exception']);
  });
});

describe('cachepointTelemetry: tool spans', () => {
  function cache(): ToolCache {
    return new ToolCache({ now: () => 0 })
      .register('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] })
      .register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  }

  it('gives every call an execute_tool span with its cache status, under the request span when given its context', async () => {
    const tools = telemetry.instrument(cache());
    const [first] = await replayAll(readTrace('fixtures/demo.jsonl'));
    const req = telemetry.request(first!.rendered);
    const read = () => ({ content: 'A', durationMs: 30 });
    const scope = { scope: '' };
    await telemetry.toolCall(tools, 'Read', { path: 'a.ts' }, read, { ...scope, callId: 'toolu_1' }, req.context);
    await tools.call('Read', { path: 'a.ts' }, read, { ...scope, callId: 'toolu_2' });
    await tools.call('Edit', { path: 'a.ts' }, () => 'ok', { ...scope, callId: 'toolu_3' });
    await tools.call('Read', { path: 'a.ts' }, () => ({ content: 'gone', isError: true }), { ...scope, callId: 'toolu_4' });
    await tools.call('Bash', { command: 'ls' }, () => 'x', { ...scope, callId: 'toolu_5' });
    await expect(tools.call('Read', { path: 'b.ts' }, () => Promise.reject(new Error('EACCES')), { ...scope, callId: 'toolu_6' })).rejects.toThrow('EACCES');
    req.end();
    // The instrumented view is the same cache: its turn clock and stats are the real ones.
    expect(tools.turn).toBe(0);
    expect(tools.stats().perTool.Read?.hits).toBe(1);

    const toolSpans = spans().filter((s) => s.name.startsWith('execute_tool'));
    expect(toolSpans.map((s) => [s.name, s.attributes['gen_ai.tool.call.id'], s.attributes['cachepoint.tool_cache.status'], s.status.code])).toEqual([
      ['execute_tool Read', 'toolu_1', 'miss', SpanStatusCode.UNSET],
      ['execute_tool Read', 'toolu_2', 'hit', SpanStatusCode.UNSET],
      ['execute_tool Edit', 'toolu_3', 'write', SpanStatusCode.UNSET],
      ['execute_tool Read', 'toolu_4', 'miss', SpanStatusCode.ERROR],
      ['execute_tool Bash', 'toolu_5', 'bypass', SpanStatusCode.UNSET],
      ['execute_tool Read', 'toolu_6', undefined, SpanStatusCode.ERROR],
    ]);
    expect(toolSpans[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Read',
      'gen_ai.tool.type': 'function',
      'cachepoint.tool_cache.inserted': true,
    });
    expect(toolSpans[1]!.attributes).toMatchObject({ 'cachepoint.tool.duration_ms': 30, 'cachepoint.tool_cache.inserted_turn': 0 });
    expect(toolSpans[2]!.attributes).toMatchObject({ 'cachepoint.tool_cache.write_ok': true, 'cachepoint.tool_cache.evicted': 1 });
    expect(toolSpans[3]!.attributes).toMatchObject({
      'cachepoint.tool_cache.inserted': false,
      'cachepoint.tool_cache.not_inserted': 'error',
      'error.type': 'tool_error',
    });
    expect(toolSpans[4]!.attributes['cachepoint.tool_cache.bypass_reason']).toBe('undeclared');
    expect(toolSpans[5]!.events.map((e) => e.name)).toEqual(['exception']);
    const request = spans().find((s) => s.name.startsWith('chat'))!;
    expect(toolSpans[0]!.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(toolSpans[0]!.spanContext().traceId).toBe(request.spanContext().traceId);
  });
});

describe('cachepoint/otel', () => {
  it('is its own entry point: the core never imports @opentelemetry/api', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts') && !p.startsWith(join('src', 'integrations', 'otel')) && readFileSync(p, 'utf8').includes('@opentelemetry/'))
          offenders.push(p);
      }
    };
    walk('src');
    expect(offenders).toEqual([]);
  });
});

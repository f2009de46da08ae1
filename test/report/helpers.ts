/** Builds reports in-process, the way `cachepoint report` does, for the report tests. */
import { buildReportData, type ReportData } from '../../src/report/data.js';
import { readFileSync } from 'node:fs';
import { recordedUsage } from '../../src/report/recorded.js';
import { renderReport } from '../../src/report/render-report.js';
import { toolCacheSavings } from '../../src/report/tool-savings.js';
import { compareTrace } from '../../src/replay/compare.js';
import { parseTrace } from '../../src/trace/reader.js';
import { readTrace } from '../../src/trace/reader.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { type Call, lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

export const GENERATED_AT = '2026-03-02T09:00:00.000Z';

/** The report of a trace file (or of in-memory trace text), and its data. */
export async function reportOf(source: { file: string } | { text: string }, title?: string): Promise<{ data: ReportData; html: string }> {
  const load = (): AsyncIterable<TraceEvent> | Iterable<TraceEvent> => ('file' in source ? readTrace(source.file) : parseTrace(source.text));
  const comparison = await compareTrace(load);
  const tools = await toolCacheSavings(load());
  const text = 'file' in source ? readFileSync(source.file, 'utf8') : source.text;
  const recorded = recordedUsage(
    text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown),
  );
  const data = buildReportData(comparison, {
    title: title ?? ('file' in source ? source.file.split('/').at(-1)! : 'trace'),
    ...(tools ? { toolCache: tools } : {}),
    ...(recorded ? { recorded } : {}),
  });
  return { data, html: renderReport(data, { generatedAt: GENERATED_AT }) };
}

const at = (s: number): string => new Date(Date.UTC(2026, 2, 2, 9, 0, 0) + s * 1000).toISOString();
const jsonl = (...events: object[]): string => events.map((e) => JSON.stringify(e)).join('\n');

/** Markup that would break out of a text node, an attribute, a style or a script block if drawn unescaped. */
export const HOSTILE = `<script>document.title="pwned";window.__pwned=1</script></style></script><!-- <img src=x onerror="window.__pwned=2"> " ' &amp;`;

/**
 * A small trace whose tool output, user message, tool_use id and model answer all
 * carry {@link HOSTILE} markup.
 */
export function hostileTrace(): string {
  return jsonl(
    {
      type: 'envelope',
      model: 'claude-sonnet-4-6',
      instructions: ['You are an agent. '.repeat(300), `Project notes: ${HOSTILE}`],
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' } }],
    },
    { type: 'user', at: at(1), content: `look at ${HOSTILE}` },
    { type: 'assistant', at: at(3), content: [{ type: 'tool_use', id: 'toolu_</script>x', name: 'Read', input: { path: '</style>' } }] },
    { type: 'tool_results', at: at(4), content: [{ type: 'tool_result', tool_use_id: 'toolu_</script>x', content: HOSTILE.repeat(20), duration_ms: 40 }] },
    { type: 'assistant', at: at(6), content: [{ type: 'text', text: `Found ${HOSTILE}` }] },
    { type: 'user', at: at(30), content: 'again' },
    { type: 'assistant', at: at(32), content: [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { path: '</style>' } }] },
    { type: 'tool_results', at: at(33), content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: HOSTILE.repeat(20), duration_ms: 40 }] },
    { type: 'assistant', at: at(35), content: [{ type: 'text', text: 'Same.' }] },
  );
}

const A = '/repo/src/a.ts';
/** A Read, three Greps, an Edit of the file read: economy with a short prune window prunes the Read, the Edit forces its recall. */
export const RECALL_CALLS: readonly Call[] = [
  ['Read', { file_path: A }, lines('alpha', 80)],
  ...[1, 2, 3].map((k): Call => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, lines(`grep${k}`, 30)]),
  ['Edit', { file_path: A, old_string: 'alpha line 3', new_string: 'alpha line three' }, 'The file was updated.'],
];
export const RECALL_OPTIONS = { policy: 'economy', recalls: true, prune: { keepRounds: 1, minChars: 300, reuse: false } } as never;

/** The report (peer system_last) of a session with one forced recall round, and the index of the request it inserted. */
export async function recallRoundReport(): Promise<{ data: ReportData; html: string; recallIndex: number }> {
  const events = parseTrace(oneTurnTrace(RECALL_CALLS));
  const comparison = await compareTrace(() => events, RECALL_OPTIONS);
  const data = buildReportData(comparison, { title: 'recall', peer: 'system_last', policy: 'economy' });
  return { data, html: renderReport(data, { generatedAt: GENERATED_AT }), recallIndex: comparison.engine.findIndex((r) => r.forced) };
}

/**
 * What the tool-result cache would have saved on a recorded session: every
 * tool call of the trace goes, in order, through a real {@link ToolCache}
 * whose runner replays the recorded result and duration. The policy is the
 * conventional one for coding/research agents (below); tools it does not name
 * pass through, so an unknown tool never counts as a saving.
 */
import type { ToolUseBlockParam } from '../providers/anthropic-types.js';
import { ToolCache } from '../toolcache/tool-cache.js';
import { fileTag, type ToolPolicy } from '../toolcache/policy.js';
import type { TraceEvent, TraceToolResult } from '../trace/types.js';

/** Per tool: calls, hits, and what the hits saved. */
export interface ToolSavingsRow {
  readonly tool: string;
  readonly calls: number;
  readonly hits: number;
  /** Recorded run time of the calls that hit (ms). */
  readonly savedMs: number;
  /** Characters of the results replayed instead of re-run. */
  readonly savedChars: number;
}

export interface ToolCacheSavings {
  readonly calls: number;
  readonly hits: number;
  readonly savedMs: number;
  readonly savedChars: number;
  /** Turns an entry lives (the policy's TTL). */
  readonly ttlTurns: number;
  readonly tools: readonly ToolSavingsRow[];
}

type Args = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const pathOf = (a: Args): string => str(a.file_path) || str(a.path) || str(a.notebook_path) || '.';

/**
 * The default policy: file readers are cached per path (Glob/Grep depend on
 * the whole `file` family), file writers evict what they touch, Bash is a
 * family-level write (it may change any file), web reads are cached by URL/query.
 */
export function defaultToolPolicies(ttlTurns: number): Record<string, ToolPolicy<Args>> {
  const ttl = { turns: ttlTurns };
  const fileRead: ToolPolicy<Args> = { cacheable: true, ttl, reads: ['file'], tags: (a) => [fileTag(pathOf(a))] };
  const familyRead: ToolPolicy<Args> = { cacheable: true, ttl, reads: ['file:*'] };
  const fileWrite: ToolPolicy<Args> = { writes: ['file'], tags: (a) => [fileTag(pathOf(a))] };
  return {
    Read: fileRead,
    LS: fileRead,
    Glob: familyRead,
    Grep: familyRead,
    Edit: fileWrite,
    MultiEdit: fileWrite,
    Write: fileWrite,
    NotebookEdit: fileWrite,
    Bash: { writes: ['file'] },
    WebFetch: { cacheable: true, ttl, reads: ['web'] },
    WebSearch: { cacheable: true, ttl, reads: ['web'] },
  };
}

function chars(content: TraceToolResult['content']): number {
  if (typeof content === 'string') return content.length;
  if (!content) return 0;
  return content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
}

/**
 * Runs a trace's tool calls through the tool cache (turn clock = user events).
 * Returns undefined when the trace has no tool calls.
 */
export async function toolCacheSavings(events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>, ttlTurns = 5): Promise<ToolCacheSavings | undefined> {
  const cache = new ToolCache({ now: () => 0 });
  for (const [name, policy] of Object.entries(defaultToolPolicies(ttlTurns))) cache.register(name, policy);
  const rows = new Map<string, { tool: string; calls: number; hits: number; savedMs: number; savedChars: number }>();
  let pending = new Map<string, ToolUseBlockParam>();
  let turns = 0;
  for await (const e of events) {
    if (e.type === 'user') {
      if (turns++ > 0) cache.advanceTurn();
    } else if (e.type === 'assistant') {
      pending = new Map(e.content.filter((b): b is ToolUseBlockParam => b.type === 'tool_use').map((b) => [b.id, b]));
    } else if (e.type === 'tool_results') {
      // Results arrive in any order; replay them in call order, as the agent issued them.
      const byId = new Map(e.content.filter((b): b is TraceToolResult => b.type === 'tool_result').map((b) => [b.tool_use_id, b]));
      for (const [id, use] of pending) {
        const result = byId.get(id);
        if (!result) continue;
        pending.delete(id);
        const row = rows.get(use.name) ?? { tool: use.name, calls: 0, hits: 0, savedMs: 0, savedChars: 0 };
        rows.set(use.name, row);
        row.calls++;
        const recorded = {
          content: typeof result.content === 'string' ? result.content : JSON.stringify(result.content ?? ''),
          isError: result.is_error === true,
          durationMs: result.duration_ms ?? 0,
        };
        const r = await cache.call(use.name, use.input as Args, () => recorded, { scope: '', callId: id });
        if (r.cache.type === 'hit') {
          row.hits++;
          row.savedMs += result.duration_ms ?? 0;
          row.savedChars += chars(result.content);
        }
      }
    }
  }
  if (rows.size === 0) return undefined;
  const tools = [...rows.values()].sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  const sum = (f: (r: ToolSavingsRow) => number): number => tools.reduce((n, r) => n + f(r), 0);
  return { calls: sum((r) => r.calls), hits: sum((r) => r.hits), savedMs: sum((r) => r.savedMs), savedChars: sum((r) => r.savedChars), ttlTurns, tools };
}

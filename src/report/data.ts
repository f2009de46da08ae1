/**
 * The data of the HTML report: everything `renderReport` draws, as plain JSON.
 * Built from a {@link TraceComparison} (the same run `simulate` prints), so
 * the report's totals are `simulate --json`'s totals by construction.
 *
 * Size: a request's block map would repeat the whole prefix for every request
 * (quadratic). Stream blocks are memoized per source block, so each distinct
 * block is stored once in `blocks`, and a request lists its blocks as runs of
 * consecutive table ids ([first, count] pairs): an appended round costs a pair.
 */
import { blockText } from '../tokens/counter.js';
import type { TraceComparison } from '../replay/compare.js';
import type { CachePointLabel, Decision, StreamBlock } from '../render/types.js';
import type { StrategySummary } from '../sim/summary.js';
import type { SimResult } from '../sim/types.js';
import type { RecordedUsage } from './recorded.js';
import type { ToolCacheSavings } from './tool-savings.js';

// TYPES

/** One distinct block of the session's streams. */
export interface ReportBlock {
  readonly path: string;
  readonly kind: StreamBlock['kind'];
  readonly segment: StreamBlock['segment'];
  readonly tokens: number;
  /** Why its payload left the model's eyes (`prune`, `agent`, `economy`), when it did. */
  readonly hidden?: string;
  /** The first characters of what is sent (escaped when drawn, like every trace string). */
  readonly preview: string;
}

/** How one strategy's request went in the simulator. */
export interface ReportUsage {
  readonly read: number;
  readonly write5m: number;
  readonly write1h: number;
  readonly input: number;
  readonly cost: number;
  readonly bust: boolean;
  readonly missedTokens: number;
  /** Why the previous prefix did not carry over, in the API's words, or null. */
  readonly cause: string | null;
  /** Refused by the simulated API (the 400's message). */
  readonly rejected?: string;
}

/** A cache point of a request. */
export interface ReportPoint {
  readonly labels: readonly CachePointLabel[];
  /** Position in the request's block list. */
  readonly index: number;
  readonly ttl: '5m' | '1h';
  readonly moved?: 'unmarkable' | 'bridge';
}

/** A change the render made or deferred, with the gate's price when it weighed one. */
export interface ReportDecision {
  readonly type: Decision['type'];
  readonly path: string;
  readonly tokensRemoved?: number;
  readonly saving?: number;
  readonly rewrite?: number;
  readonly warm?: boolean;
  readonly why?: string;
}

export interface ReportRequest {
  readonly index: number;
  /** Seconds since the first request. */
  readonly t: number;
  /** Seconds since the previous request (0 for the first). */
  readonly gap: number;
  readonly turn: number;
  readonly round: number;
  readonly totalTokens: number;
  /** cachepoint's request in the simulator. */
  readonly cp: ReportUsage;
  /** The peer strategy's request for the same trace request; null on a request only cachepoint sent ({@link recall}). */
  readonly peer: ReportUsage | null;
  /** The ideal bound's cost of the same plain request (the line in the cost chart); null with {@link recall}. */
  readonly ideal: number | null;
  /**
   * Set on a request the trace does not have: the one after a recall round cachepoint's removals forced
   * (the paths it read back). The peers never send it, so it has no peer or ideal counterpart.
   */
  readonly recall?: readonly string[];
  /** The block list as [first table id, count] runs. */
  readonly runs: readonly (readonly [number, number])[];
  readonly points: readonly ReportPoint[];
  readonly tailStart: number;
  /** First block of the editable zone (after ③, or ② without ③, or ①), or -1 when there is none. */
  readonly editableStart: number;
  /** First block that changed since the previous request (= previous length when it only appended). */
  readonly firstChange: number;
  readonly firstChangePath?: string;
  /**
   * Why the previous request's stable prefix did not carry over, from the render's
   * plan (the tail is volatile by design and never counts), or null.
   */
  readonly cause: string | null;
  /** The read the plan predicted (tokens), to set against the simulator's. */
  readonly predictedRead: number;
  readonly decisions: readonly ReportDecision[];
}

/** Something worth a look, tied to a request. */
export interface ReportEvent {
  readonly request: number;
  readonly type: 'bust' | 'miss' | 'idle' | 'compact' | 'prune' | 'hide' | 'defer' | 'rejected' | 'recall';
  readonly text: string;
}

export interface ReportData {
  readonly version: 1;
  readonly title: string;
  readonly model: string;
  readonly policy: string;
  /** Whose prices and cache rules (`anthropic`, `bedrock`, `openai`). */
  readonly provider: string;
  readonly peer: { readonly id: string; readonly label: string };
  readonly ttl5mSeconds: number;
  readonly blocks: readonly ReportBlock[];
  readonly requests: readonly ReportRequest[];
  readonly events: readonly ReportEvent[];
  /** Every strategy, cachepoint and the ideal bounds, exactly as `simulate --json` reports them. */
  readonly totals: readonly StrategySummary[];
  /** The ideal bound of cachepoint's own requests. */
  readonly engineIdeal: number;
  readonly toolCache?: ToolCacheSavings;
  /** The usage the provider reported, when the trace carries it (imported logs). */
  readonly recorded?: RecordedUsage;
}

export interface ReportDataOptions {
  /** Shown as the report's title (e.g. the trace file name). */
  readonly title: string;
  /** Peer strategy to draw next to cachepoint (default: the cheapest baseline that caches). */
  readonly peer?: string;
  readonly policy?: string;
  readonly provider?: string;
  readonly toolCache?: ToolCacheSavings;
  readonly recorded?: RecordedUsage;
}

// IMPLEMENTATION

const PREVIEW_CHARS = 100;

function preview(block: StreamBlock): string {
  const { text } = blockText(block.param);
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}

function usageOf(r: SimResult | undefined): ReportUsage {
  if (!r || r.rejected) {
    return { read: 0, write5m: 0, write1h: 0, input: 0, cost: 0, bust: false, missedTokens: 0, cause: null, rejected: r?.rejected?.message ?? 'no request' };
  }
  const u = r.usage;
  return {
    read: u.cache_read_input_tokens,
    write5m: u.cache_creation.ephemeral_5m_input_tokens,
    write1h: u.cache_creation.ephemeral_1h_input_tokens,
    input: u.input_tokens,
    cost: r.cost.total,
    bust: r.explain.bust,
    missedTokens: r.explain.missedTokens,
    cause: r.explain.change?.cause ?? null,
  };
}

function decisionOf(d: Decision): ReportDecision {
  const price = 'price' in d && d.price ? { saving: d.price.saving, rewrite: d.price.rewrite, warm: d.price.warm } : {};
  return {
    type: d.type,
    path: d.path,
    ...('tokensRemoved' in d ? { tokensRemoved: d.tokensRemoved } : {}),
    ...price,
    ...(d.type === 'defer' ? { why: d.why } : {}),
  };
}

/** Runs of consecutive ids: [3,4,5,9] → [[3,3],[9,1]]. */
function toRuns(ids: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const id of ids) {
    const last = runs.at(-1);
    if (last && last[0] + last[1] === id) last[1]++;
    else runs.push([id, 1]);
  }
  return runs;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const usd = (n: number): string => `$${n.toFixed(4)}`;

/** The cheapest baseline that places markers at all (the strongest peer). */
function defaultPeer(c: TraceComparison): string {
  const peers = c.summaries.filter((s) => s.id !== 'none' && s.id !== 'cachepoint' && !s.id.startsWith('ideal') && c.runs[s.id]);
  peers.sort((a, b) => a.cost - b.cost);
  return peers[0]?.id ?? 'none';
}

/**
 * Collects the report's data from a comparison (see `compareTrace`).
 *
 * @throws {Error} when `peer` names no strategy of the comparison
 */
export function buildReportData(c: TraceComparison, options: ReportDataOptions): ReportData {
  const peerId = options.peer ?? defaultPeer(c);
  const peerRun = c.runs[peerId];
  const cpRun = c.runs.cachepoint ?? c.engineResults;
  if (!peerRun) throw new Error(`unknown peer strategy "${peerId}"; known: ${Object.keys(c.runs).join(', ')}`);
  const table = new Map<StreamBlock, number>();
  const blocks: ReportBlock[] = [];
  const idOf = (b: StreamBlock): number => {
    let id = table.get(b);
    if (id === undefined) {
      id = blocks.length;
      table.set(b, id);
      blocks.push({ path: b.path, kind: b.kind, segment: b.segment, tokens: b.tokens, ...(b.hidden ? { hidden: b.hidden } : {}), preview: preview(b) });
    }
    return id;
  };
  const t0 = c.engine[0]?.at ?? 0;
  const ttl5m = c.engine[0]?.rendered.profile.ttlMs['5m'] ?? 300_000;
  const events: ReportEvent[] = [];
  // The peers and the ideal bound price the trace's requests only: the k-th request cachepoint sent that is not an
  // inserted one (after a forced recall round) is their k-th.
  let traceIndex = -1;
  const requests = c.engine.map((r, i): ReportRequest => {
    const rendered = r.rendered;
    const cp = usageOf(cpRun[i]);
    if (!r.forced) traceIndex++;
    const peer = r.forced ? null : usageOf(peerRun[traceIndex]);
    const gapMs = i === 0 ? 0 : r.at - c.engine[i - 1]!.at;
    // The zone as DESIGN.md draws it: after ③, or ② while there is no ③, or ① (see editableZoneStart).
    const by = (label: CachePointLabel) => rendered.cachePoints.find((p) => p.labels.includes(label));
    const pre = by(3) ?? by(2) ?? by(1);
    const decisions = rendered.decisions.filter((d) => d.type !== 'notice').map(decisionOf);

    if (r.forced) {
      const what = r.forced.map((f) => `${f.path} (removed by ${f.removedBy}, needed by ${f.by} ${f.target})`).join(', ');
      events.push({ request: i, type: 'recall', text: `recall round: the agent had to read back ${what}; this extra request is cachepoint's only` });
    }
    if (gapMs > ttl5m) events.push({ request: i, type: 'idle', text: `idle ${(gapMs / 60_000).toFixed(1)} min before this request (past the 5-minute TTL)` });
    if (cp.rejected) events.push({ request: i, type: 'rejected', text: `rejected by the API: ${cp.rejected}` });
    if (cp.bust) events.push({ request: i, type: 'bust', text: `bust: a warm entry held ${int(cp.missedTokens)} more tokens than were read` });
    const plan = rendered.plan;
    if (plan.cause) {
      const path = plan.firstChangePath;
      events.push({ request: i, type: 'miss', text: `prefix changed (${plan.cause})${path ? ` at ${path}` : ''}: everything after it is re-written` });
    } else if (i > 0 && !cp.rejected && cp.read === 0) {
      events.push({
        request: i,
        type: 'miss',
        text: gapMs > ttl5m ? 'cold: nothing read (the cache expired during the idle gap)' : 'nothing read from the cache',
      });
    } else if (i > 0 && !cp.rejected && cp.read < (plan.read?.tokens ?? 0)) {
      events.push({ request: i, type: 'miss', text: `read ${int(cp.read)} tokens, the plan predicted ${int(plan.read?.tokens ?? 0)}` });
    }
    for (const d of decisions) {
      const price = d.saving !== undefined ? ` (gate: saves ${usd(d.saving)}, re-write ${usd(d.rewrite ?? 0)}, ${d.warm ? 'warm' : 'cold'})` : '';
      const removed = d.tokensRemoved !== undefined ? `, −${int(d.tokensRemoved)} tokens` : '';
      if (d.type === 'compact') events.push({ request: i, type: 'compact', text: `compaction into ${d.path}${removed}${price}` });
      else if (d.type === 'prune' || d.type === 'hide') events.push({ request: i, type: d.type, text: `${d.type} ${d.path}${removed}${price}` });
      else if (d.type === 'defer') events.push({ request: i, type: 'defer', text: `deferred ${d.path}: ${d.why ?? ''}${price}` });
    }
    return {
      index: i,
      t: Math.round((r.at - t0) / 100) / 10,
      gap: Math.round(gapMs / 100) / 10,
      turn: r.turn,
      round: r.round,
      totalTokens: rendered.tokens.total,
      cp,
      peer,
      ideal: r.forced ? null : (c.ideal.requests[traceIndex]?.cost ?? 0),
      ...(r.forced ? { recall: r.forced.map((f) => f.path) } : {}),
      runs: toRuns(rendered.stream.map(idOf)),
      points: rendered.cachePoints.map((p) => ({ labels: p.labels, index: p.index, ttl: p.ttl, ...(p.moved ? { moved: p.moved } : {}) })),
      tailStart: rendered.tailStart,
      editableStart: pre ? Math.min(pre.index + 1, rendered.tailStart) : -1,
      firstChange: rendered.firstChange,
      ...(plan.firstChangePath ? { firstChangePath: plan.firstChangePath } : {}),
      cause: plan.cause,
      predictedRead: plan.read?.tokens ?? 0,
      decisions,
    };
  });
  const peerSummary = c.summaries.find((s) => s.id === peerId);
  return {
    version: 1,
    title: options.title,
    model: c.engine[0]?.request.model ?? '',
    policy: options.policy ?? 'conservative',
    provider: options.provider ?? 'anthropic',
    peer: { id: peerId, label: peerSummary?.label ?? peerId },
    ttl5mSeconds: ttl5m / 1000,
    blocks,
    requests,
    events,
    totals: c.summaries,
    engineIdeal: c.engineIdeal,
    ...(options.toolCache ? { toolCache: options.toolCache } : {}),
    ...(options.recorded ? { recorded: options.recorded } : {}),
  };
}

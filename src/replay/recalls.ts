/**
 * The forced-recall estimate (DESIGN.md "forced recall"). While a trace is
 * replayed under a policy, a later tool call that needs what a pruned, hidden
 * or compacted payload holds is a round the agent could not have skipped: it
 * has to read the payload back (`recall`) before it can make that call.
 *
 * A call needs an earlier payload when (targets: src/toolcache/targets.ts):
 * - it edits a file (an Edit, not a whole-file Write) and the newest text of
 *   that file it was shown (a Read result, a Write's content) is removed;
 * - it reads a file again, and the newest text of that file is removed and
 *   still current (the file was not written since: re-reading a file after an
 *   edit is a refresh the agent makes anyway, not one we forced);
 * - it repeats an earlier call exactly (same tool and arguments) whose result
 *   is removed and still current (no write since to the files it names, or,
 *   naming none, to any file; web lookups never go stale here), e.g. a command
 *   re-run with nothing changed;
 * - it names a tag (the tool policy's, when the tool cache declares one) whose
 *   newest result is removed and was not written since.
 *
 * Only the newest source of a target counts: an older Read superseded by a
 * visible newer one is not needed. Once recalled, the copy (the recall round's
 * result) is the newest source, so a payload is not counted twice while the
 * copy is visible.
 */
import type { ToolPolicy } from '../toolcache/policy.js';
import { callTargets, type CallTargets } from '../toolcache/targets.js';
import type { BlockPath, HideReason, Summary, TimelineState } from '../timeline/types.js';

/** Why the needed payload was not visible: a hide/prune reason, or covered by a compaction summary. */
export type RemovedBy = HideReason | 'compact';

/** One payload a later call needed while it was removed from the request. */
export interface ForcedRecall {
  /** The removed payload's path (what `recall` is called with). */
  readonly path: BlockPath;
  readonly removedBy: RemovedBy;
  /** The tool whose call needed it, and what it targets (a file, or the repeated call). */
  readonly by: string;
  readonly target: string;
}

interface Source {
  readonly path: BlockPath;
  /** Order of the call that produced it. */
  readonly seq: number;
  /** Order of the content it holds (a recalled copy holds the original's). */
  readonly contentSeq: number;
}

const RECALL_TOOL = 'recall';

/** Follows a replay's timeline and says which removed payloads each new response needs. */
export class RecallTracker {
  readonly #policies: Readonly<Record<string, ToolPolicy<never>>> | undefined;
  readonly #sources = new Map<string, Source>();
  readonly #fileWrites = new Map<string, number>();
  readonly #tagWrites = new Map<string, number>();
  #anyWrite = 0;
  #seq = 0;
  readonly #pending = new Map<string, { targets: CallTargets; seq: number }>();
  readonly #seen = new Set<BlockPath>();
  /** Rounds fully processed: turn index → rounds whose response and results are all seen. */
  #doneTurns = 0;
  readonly #summaryPaths = new WeakMap<Summary, ReadonlySet<BlockPath>>();

  constructor(policies?: Readonly<Record<string, ToolPolicy<never>>>) {
    this.#policies = policies;
  }

  /** Registers every call and result of the state not seen yet. */
  sync(state: TimelineState): void {
    for (let t = this.#doneTurns; t < state.turns.length; t++) {
      const turn = state.turns[t]!;
      for (const round of turn.rounds) {
        for (const b of round.response) {
          if (b.param.type !== 'tool_use' || this.#seen.has(b.path)) continue;
          this.#seen.add(b.path);
          this.#call(b.path, b.param.id, b.param.name, b.param.input);
        }
        for (const b of round.results) {
          if (b.param.type !== 'tool_result' || this.#seen.has(b.path)) continue;
          this.#seen.add(b.path);
          const call = this.#pending.get(b.id);
          this.#pending.delete(b.id);
          if (!call || b.param.is_error || call.targets.kind !== 'read' || call.targets.name === RECALL_TOOL) continue;
          const src = { path: b.path, seq: call.seq, contentSeq: call.seq };
          for (const f of call.targets.files) this.#sources.set(`f:${f}`, src);
          for (const tag of call.targets.tags) this.#sources.set(`t:${tag}`, src);
          this.#sources.set(`k:${call.targets.key}`, src);
        }
      }
      // Every turn but the newest is complete.
      if (t < state.turns.length - 1) this.#doneTurns = t + 1;
    }
  }

  #call(path: BlockPath, id: string, name: string, input: unknown): void {
    const seq = ++this.#seq;
    if (name === RECALL_TOOL) return;
    const targets = callTargets(name, input, this.#policies);
    this.#pending.set(id, { targets, seq });
    if (targets.kind !== 'write') return;
    for (const f of targets.files) this.#fileWrites.set(f, seq);
    for (const tag of targets.tags) this.#tagWrites.set(tag, seq);
    if (targets.files.length > 0 || targets.tags.length > 0) this.#anyWrite = seq;
    if (targets.overwrite) for (const f of targets.files) this.#sources.set(`f:${f}`, { path, seq, contentSeq: seq });
  }

  /**
   * The removed payloads the calls of `content` need, given the state the
   * request was rendered from (its hides, prunes and summaries).
   */
  needs(state: TimelineState, content: readonly unknown[]): ForcedRecall[] {
    this.sync(state);
    const out = new Map<BlockPath, ForcedRecall>();
    const need = (s: Source | undefined, by: string, target: string, stale: boolean): void => {
      if (!s || stale || out.has(s.path)) return;
      const removedBy = this.#removed(state, s.path);
      if (removedBy) out.set(s.path, { path: s.path, removedBy, by, target });
    };
    for (const raw of content) {
      const b = raw as { type?: string; name?: string; input?: unknown };
      if (b.type !== 'tool_use' || typeof b.name !== 'string' || b.name === RECALL_TOOL) continue;
      const t = callTargets(b.name, b.input, this.#policies);
      if (t.kind === 'write') {
        if (t.overwrite) continue;
        for (const f of t.files) need(this.#sources.get(`f:${f}`), t.name, f, false);
        for (const tag of t.tags) need(this.#sources.get(`t:${tag}`), t.name, tag, false);
        continue;
      }
      for (const f of t.files) {
        const s = this.#sources.get(`f:${f}`);
        need(s, t.name, f, s !== undefined && (this.#fileWrites.get(f) ?? 0) > s.contentSeq);
      }
      for (const tag of t.tags) {
        const s = this.#sources.get(`t:${tag}`);
        need(s, t.name, tag, s !== undefined && (this.#tagWrites.get(tag) ?? 0) > s.contentSeq);
      }
      const s = this.#sources.get(`k:${t.key}`);
      if (s) {
        const written = t.files.length > 0 ? Math.max(0, ...t.files.map((f) => this.#fileWrites.get(f) ?? 0)) : t.external ? 0 : this.#anyWrite;
        need(s, t.name, `${t.name} (same arguments)`, written > s.contentSeq);
      }
    }
    return [...out.values()];
  }

  /** After a recall round: its result at `copy` is now the newest source of everything `original` was. */
  recalled(original: BlockPath, copy: BlockPath): void {
    for (const [k, s] of this.#sources) {
      if (s.path === original) this.#sources.set(k, { path: copy, seq: this.#seq, contentSeq: s.contentSeq });
    }
  }

  #removed(state: TimelineState, path: BlockPath): RemovedBy | undefined {
    const h = state.hidden[path];
    // A duplicate replaced by a pointer is visible while the copy it points at is.
    if (h?.sameAs !== undefined && this.#removed(state, h.sameAs) === undefined) return undefined;
    if (h) return h.reason;
    for (const s of state.summaries) {
      let set = this.#summaryPaths.get(s);
      if (!set) this.#summaryPaths.set(s, (set = new Set(s.paths)));
      if (set.has(path)) return 'compact';
    }
    return undefined;
  }
}

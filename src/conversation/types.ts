/**
 * Conversations: the state `prepare` keeps between requests of one agent
 * session, under the caller's `conversationId`, in a conversation store.
 */
import type { ModelPrices } from '../models/profiles.js';
import type { CalibrationSnapshot } from '../tokens/calibration.js';
import type { CacheTtl, DeferredHide, HiddenRecord, TimelineState } from '../timeline/types.js';
import type { PendingRequest, RequestRecord } from '../session/stats.js';

// TYPES

/** Where the timeline stood before a message was mapped onto it (to cut back to on a resync). */
export interface MessageMark {
  /** Turns in the timeline. */
  readonly turns: number;
  /** Rounds in the last turn. */
  readonly rounds: number;
  /** Result blocks (tool results and injected text) in the last round. */
  readonly results: number;
}

/** One message of the caller's `messages` array that is part of the stored timeline. */
export interface ConsumedMessage {
  /**
   * Hash of the message as sent (role + content blocks, cache markers stripped).
   * Always present in exported state; in process it is computed only when needed
   * (see `sent`).
   */
  readonly digest?: string;
  readonly mark: MessageMark;
  /** In process only, never exported: the message as sent, recognised by identity without hashing. */
  readonly sent?: SentMessage;
}

/** A message as `prepare` received it: the objects, and the block list at that time. */
export interface SentMessage {
  readonly message: object;
  readonly role: string;
  readonly content: string | readonly object[];
  /** The content's blocks at that time (absent for a string content). */
  readonly blocks?: readonly object[];
}

/**
 * What each consumed message was (object, content, role, blocks), in flat
 * arrays, in process only: checking that a loop re-sent the same messages
 * then reads our side sequentially instead of chasing one object per message
 * (on a long conversation those loads miss the cache, since a render runs in
 * between). The arrays are shared along a chain of records and only appended
 * to: a record reads the first `consumedCount` entries, and extends them in
 * place only when nothing extended them past its length (otherwise it copies).
 */
export interface SentIndex {
  readonly messages: object[];
  readonly contents: unknown[];
  readonly roles: string[];
  /** Where message i's blocks start in `blocks` (length: messages + 1). */
  readonly starts: number[];
  readonly blocks: object[];
}

/** The model, system and tools a request was rendered from (arrays copied, items as the caller sent them). */
export interface SentEnvelope {
  readonly model: string;
  readonly system: unknown;
  readonly tools: readonly unknown[];
}

/** Digests of the envelope the state was built from. */
export interface EnvelopeDigest {
  readonly model: string;
  readonly system: string;
  readonly tools: string;
}

/**
 * Everything stored for one conversation. Immutable: every `prepare` or
 * `recordUsage` saves a new record with `revision + 1`.
 */
export interface ConversationRecord {
  readonly id: string;
  /** Optimistic version: a save names the revision it read; a different stored one is a conflict. */
  readonly revision: number;
  /**
   * Which life of the conversation this is: an id unique to it given when `prepare` creates it (a random part per process and a counter) and kept by every later
   * save. Revisions restart at 1 when a conversation is deleted and created again, so a store's compare-and-set
   * checks this too: a writer that loaded the old one gets a `ConversationConflictError` instead of saving over the
   * new one. Absent in records of older builds (the revision alone decides, as before).
   */
  readonly incarnation?: string;
  /** The timeline with every sticky decision, and the previous render's memory. */
  readonly state: TimelineState;
  /**
   * The message a history cut (`history_truncated`) removed at the cut's position, as a digest, while the
   * conversation was not extended past the cut. A response sent there again is the one the request before the cut
   * got (the loop went back to its whole array), not the cut request's: on a model that binds thinking its thinking
   * is under a prefix this state no longer knows (the tails and hides of the requests before the cut), so `prepare`
   * leaves it out (conversation/unvouched.ts).
   */
  readonly cutMessage?: { readonly at: number; readonly digest: string };
  /**
   * The messages mapped onto the timeline so far, in order: the first
   * {@link consumedCount} entries when that is set.
   */
  readonly consumed: readonly ConsumedMessage[];
  /**
   * In process only, never exported: how many entries of `consumed` are this
   * record's. `prepare` shares one `consumed` array along a chain of records
   * (each appends the messages it mapped, in place, when nothing appended past
   * its own count; otherwise it copies), so a request does not copy the whole
   * history's list. Absent: all of `consumed`. Read it with `consumedOf`.
   */
  readonly consumedCount?: number;
  /**
   * Digests of the model, system and tools the state was rendered from. Always
   * present in exported state; in process it is computed only when needed
   * (from `sentEnvelope`).
   */
  readonly envelope?: EnvelopeDigest;
  /**
   * In process only, never exported: the model, system and tools the state was
   * rendered from, so an unchanged envelope is recognised without hashing it.
   */
  readonly sentEnvelope?: SentEnvelope;
  /**
   * In process only, never exported: the consumed messages' objects in flat
   * arrays (see {@link SentIndex}), to recognise re-sent messages cheaply.
   */
  readonly sentIndex?: SentIndex;
  /** Prices of the model profile the latest render used. */
  readonly prices: ModelPrices;
  /** The latest render waiting for its usage (see `recordUsage`). */
  readonly pending?: PendingRequest;
  /** Requests whose usage was recorded. */
  readonly requests: readonly RequestRecord[];
  /** Token-count calibration samples. */
  readonly calibration?: CalibrationSnapshot;
  /** The id of the latest response recorded (for the API's cache diagnostics). */
  readonly lastMessageId?: string;
  /** Whether the latest request had a volatile tail (the API's diagnostics then see its messages change). */
  readonly lastHadTail?: boolean;
  /** When the latest response was recorded (ms): the time its round is stamped with. */
  readonly respondedAt?: number;
  /** Last write (ms). */
  readonly updatedAt: number;
  /**
   * What the latest cut-back removed (a retry without the last response, a rewind), kept until the loop sends it
   * again or its cache entries expire, so the request that re-sends it reads the entries the provider still holds
   * there (see cut-shadow.ts). Exported (state version 2).
   */
  readonly cut?: CutShadow;
  /**
   * Set by `importState` until the next `prepare`: the previous render's stream
   * as paths and digests, to rebuild its cache ledger against the imported
   * blocks (in-process records hold the live objects instead).
   */
  readonly imported?: ImportedRender;
}

/** A cache entry of the shadow: as the ledger records it, the stream block aside (it is matched by index). */
export interface ShadowEntry {
  readonly path: string;
  readonly index: number;
  readonly prefixTokens: number;
  readonly ttl: CacheTtl;
  readonly expiresAt: number;
}

/** The stretch a cut removed, as the requests before the cut sent it (plain JSON: exported with the record). */
export interface CutShadow {
  /** Consumed messages right after the cut: the request that appends past them takes the stretch back. */
  readonly count: number;
  /** Where the timeline was cut: the mark of the first message no longer sent. */
  readonly mark: MessageMark;
  /** The stretch's blocks in timeline order: path, id and a digest of the payload. */
  readonly blocks: readonly { readonly path: string; readonly id: string; readonly digest: string }[];
  /** Sticky hides on those blocks (by path) and deferred hides waiting on them, when they were cut. */
  readonly hidden: Readonly<Record<string, HiddenRecord>>;
  readonly deferred: readonly DeferredHide[];
  /** Stream index of the stretch's first block: the length of the cut request's stable stream. */
  readonly from: number;
  /** The stable stream from `from` on as the last request before the cut sent it: path and key (see state.ts) per block. */
  readonly stream: readonly { readonly path: string; readonly key: string }[];
  /** The cache entries that request left at `from` or later (oldest position first). */
  readonly entries: readonly ShadowEntry[];
  /**
   * Models that do not keep thinking, when that request's provider prefix parts from the cut request's before the
   * cut request's end (see shadowOfCut): its strip boundary. `from` is then where they part, and the shadow is that
   * request's own view, kept beside the cut request's (LastRender.otherView) instead of continuing it. Models that
   * keep thinking, when the cut sent the latest answer's thinking again (its hide is then in `hidden`, though the
   * block is before the cut): 0, the same own view.
   */
  readonly stripBoundary?: number;
}

/** The previous render's memory in serializable form (see `exportState`). */
export interface ImportedRender {
  /** Per stream block: its path, role, and a key that changes when its bytes do (see state.ts). */
  readonly stream: readonly { readonly path: string; readonly role: 'tools' | 'system' | 'user' | 'assistant'; readonly key: string }[];
  readonly entries: readonly {
    readonly path: string;
    readonly index: number;
    readonly prefixTokens: number;
    readonly ttl: '5m' | '1h';
    readonly expiresAt: number;
  }[];
  readonly at: number;
  readonly model?: string;
  readonly turn: number;
  readonly round: number;
  readonly requests: number;
  readonly idleGaps: number;
  /** That request's strip boundary (LastRender.stripBoundary); absent in records of older builds. */
  readonly stripBoundary?: number;
  /**
   * Whether that request's last user message held its strip boundary: all an older build kept of it, and read from
   * its records (then the boundary is taken as the stream's end); still written for such a build to read.
   */
  readonly thinkingStripped?: true;
  /**
   * LastRender.otherView: its stream from `from` to its last entry (before `from` it is `stream`'s), its entries and
   * strip boundary. Absent in records of older builds (which ignore it).
   */
  readonly otherView?: {
    readonly from: number;
    readonly stripBoundary: number;
    /** A compaction's superseded entries (LastRender.otherView.superseded); absent in older builds' records. */
    readonly superseded?: true;
    /** `digest`: of the payload, for a block the render's own stream did not hold (absent in older builds' records). */
    readonly stream: readonly {
      readonly path: string;
      readonly role: 'tools' | 'system' | 'user' | 'assistant';
      readonly key: string;
      readonly digest?: string;
    }[];
    readonly entries: readonly ShadowEntry[];
  };
  /** The tail that request sent (models that bind thinking to its prefix: render/bind.ts keeps it once answered). */
  readonly tail?: readonly { readonly path: string; readonly param: unknown }[];
}

/**
 * Where conversations live. One small interface; every implementation passes
 * the same contract suite (test/conversation/store-contract.ts).
 *
 * `save` is a compare-and-set: it writes only when the stored revision is
 * `expected` (`null`: nothing stored yet), and otherwise throws a
 * `ConversationConflictError` and writes nothing.
 */
export interface ConversationStore {
  load(id: string): Promise<ConversationRecord | undefined>;
  save(record: ConversationRecord, expected: number | null): Promise<void>;
  delete(id: string): Promise<void>;
}

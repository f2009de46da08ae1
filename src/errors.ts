/**
 * Every error cachepoint throws. Expected outcomes (a cache miss, a deferred
 * hide, a moved cache point) are values in results, never exceptions; only
 * misuse, invalid input and I/O failure throw.
 */

/** Stable, machine-readable error codes. */
export type ErrorCode =
  | 'invalid_option'
  | 'invalid_timeline'
  | 'unknown_model'
  | 'ttl_order'
  | 'hide_refused'
  | 'not_found'
  | 'context_overflow'
  | 'trace_parse'
  | 'canonical_key'
  | 'cache_store'
  | 'summarizer'
  | 'import_parse'
  | 'invalid_params'
  | 'conversation_conflict'
  | 'conversation_state'
  | 'conversation_store'
  | 'provider_mapping';

/** Base class: every error carries a `code`; `cause` holds the underlying error when there is one. */
export class CachepointError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * An option has a value it cannot take. The message names the option, the
 * value and the accepted range; `value` and `expected` carry them for code.
 */
export class InvalidOptionError extends CachepointError {
  readonly option: string;
  /** The refused value (absent when the error is about a missing or combined setting). */
  readonly value?: unknown;
  /** What the option accepts, e.g. `an integer ≥ 0`. */
  readonly expected?: string;
  constructor(option: string, message: string, details: { value?: unknown; expected?: string; raw?: boolean } = {}) {
    super('invalid_option', details.raw ? message : `${option}: ${message}`);
    this.option = option;
    if ('value' in details) this.value = details.value;
    if (details.expected !== undefined) this.expected = details.expected;
  }
}

/** An edit would make the timeline invalid for the API. `path` names where. Nothing was changed. */
export class TimelineError extends CachepointError {
  readonly path: string;
  constructor(path: string, message: string) {
    super('invalid_timeline', `${path}: ${message}`);
    this.path = path;
  }
}

/** The model id is not in the profile table (also after reading it as a Bedrock, Vertex or alias id). */
export class UnknownModelError extends CachepointError {
  readonly model: string;
  readonly known: readonly string[];
  /** The API id the model was read as, when it differs (Bedrock, Vertex, alias). */
  readonly canonical: string | undefined;
  /** The provider whose table was searched (absent: Anthropic's). */
  readonly provider: string | undefined;
  /** What the id most likely is (a known id it is a typo of, an OpenAI model, an opaque ARN), when something says so. */
  readonly hint: string | undefined;
  constructor(model: string, known: readonly string[], canonical?: string, provider?: string, hint?: string) {
    super(
      'unknown_model',
      provider
        ? `${provider} has no profile for model "${model}". Known ${provider} models: ${known.join(', ')}. Choose one, or pass a custom profile: customProfile("${model}", { provider: "${provider}", prices: { input, output } }) in render options' profiles.`
        : `unknown model "${model}"${canonical ? ` (read as "${canonical}")` : ''}.${hint ? ` ${hint}` : ''} Known: ${known.join(', ')}. ` +
            `Fix: pass a profile for it, e.g. render: { profiles: { '${model}': customProfile('${model}', { prices: { input: 3 } }) } } (or profile: resolveProfile('<a known id>')).`,
    );
    this.model = model;
    this.known = known;
    this.canonical = canonical;
    this.provider = provider;
    this.hint = hint;
  }
}

/** A 1-hour cache point would come after a 5-minute one; the API answers 400 for that. An invalid `ttl` option. */
export class TtlOrderError extends InvalidOptionError {
  constructor(message: string, details: { value?: unknown; expected?: string } = {}) {
    super('ttl', message, { ...details, raw: true });
    (this as { code: ErrorCode }).code = 'ttl_order';
  }
}

/** A hide was refused (outside the editable zone, or a block that cannot be hidden). */
export class HideRefusedError extends CachepointError {
  readonly path: string;
  readonly reason: 'outside_editable_zone' | 'not_hideable' | 'unknown_path';
  constructor(path: string, reason: HideRefusedError['reason'], message: string) {
    super('hide_refused', `${path}: ${message}`);
    this.path = path;
    this.reason = reason;
  }
}

/** Nothing exists at that path. */
export class PathNotFoundError extends CachepointError {
  readonly path: string;
  constructor(path: string, message = 'no block exists at this path') {
    super('not_found', `${path}: ${message}`);
    this.path = path;
  }
}

/** Even the envelope plus the newest turn do not fit the context window. */
export class ContextOverflowError extends CachepointError {
  readonly tokens: number;
  readonly limit: number;
  constructor(tokens: number, limit: number, what: string) {
    super('context_overflow', `${what} needs ${tokens} tokens but the window allows ${limit} (over by ${tokens - limit}); compaction cannot go further.`);
    this.tokens = tokens;
    this.limit = limit;
  }
}

/**
 * The Messages API params given to `prepare` cannot be mapped onto a timeline
 * (the API would refuse them too). `where` names the field, e.g. `messages[3]`.
 */
export class InvalidParamsError extends CachepointError {
  readonly where: string;
  constructor(where: string, message: string, options?: { cause?: unknown }) {
    super('invalid_params', `${where}: ${message}`, options);
    this.where = where;
  }
}

/**
 * Another worker saved the conversation since this one loaded it (optimistic
 * versioning). Nothing was written: call `prepare` again with the same params
 * (it reloads the newer state).
 */
export class ConversationConflictError extends CachepointError {
  readonly conversationId: string;
  readonly expected: number | null;
  readonly actual: number | null;
  constructor(conversationId: string, expected: number | null, actual: number | null, recreated = false) {
    super(
      'conversation_conflict',
      recreated
        ? `conversation "${conversationId}": deleted and created again since it was loaded (revision ${actual ?? 'none'} is the new one's); retry the call`
        : `conversation "${conversationId}": saved by another writer (expected revision ${expected ?? 'none'}, found ${actual ?? 'none'}); retry the call`,
    );
    this.conversationId = conversationId;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * A stored conversation state cannot be read: written by a newer cachepoint
 * (`reason: 'newer_version'`) or damaged (`'corrupt'`). Never silently reset:
 * delete the conversation (or import it with a matching version) to go on.
 */
export class ConversationStateError extends CachepointError {
  readonly conversationId: string;
  readonly reason: 'newer_version' | 'corrupt';
  constructor(conversationId: string, reason: ConversationStateError['reason'], message: string, options?: { cause?: unknown }) {
    super('conversation_state', `conversation "${conversationId}": ${message}`, options);
    this.conversationId = conversationId;
    this.reason = reason;
  }
}

/** The conversation store failed (I/O, Redis down). `prepare` falls back unless told to throw (see `onStoreError`). */
export class ConversationStoreError extends CachepointError {
  readonly conversationId: string;
  constructor(conversationId: string, message: string, options?: { cause?: unknown }) {
    super('conversation_store', `conversation "${conversationId}": ${message}`, options);
    this.conversationId = conversationId;
  }
}

/**
 * A rendered block has no equivalent in the target provider's API (a server
 * tool, a document block, an image where the API takes none), or a provider's
 * response cannot be read back (a Converse stream that ended early). `path`
 * names the block or event; nothing was sent or recorded.
 */
export class ProviderMappingError extends CachepointError {
  readonly provider: string;
  readonly path: string;
  /** `fix`: what to do instead (default: remove or convert the block before rendering; a response read back says its own). */
  constructor(provider: string, path: string, why: string, fix = `Remove or convert that block before rendering for ${provider}.`) {
    super('provider_mapping', `${provider}: ${path}: ${why}. ${fix}`);
    this.provider = provider;
    this.path = path;
  }
}

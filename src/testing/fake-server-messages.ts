/**
 * The `/v1/messages` answer of the fake server: takes the next scripted
 * response, asks the usage model for `usage` (never for a scripted error),
 * adds `diagnostics` against an earlier message, and builds the `Message`.
 * The script queue and the id counters live here; HTTP does not.
 */
import type { Message, MessageCreateParamsBase } from '../providers/anthropic-types.js';
import { UnknownModelError } from '../errors.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import { diagnose, fingerprint, type Fingerprint } from './fake-server-diagnostics.js';
import { HttpError } from './fake-server-http.js';
import { isScriptedError, materialize, type ScriptedError, type ScriptedResponse, type ScriptEntry } from './fake-server-script.js';
import { promptTokens, type UsageModel, type UsageOutcome, type UsageRejection } from './fake-server-usage.js';

/** A created message and what the usage model said about its request. */
export interface CreatedMessage {
  readonly message: Message;
  readonly explain?: unknown;
}

/** Plays the script back, one entry per model request (pre-warming requests take none). */
export class MessageResponder {
  readonly #queue: ScriptEntry[];
  readonly #fingerprints = new Map<string, Fingerprint>();
  #played = 0;
  #messages = 0;
  #toolIds = 0;

  constructor(
    script: readonly ScriptEntry[],
    readonly usageModel: UsageModel,
    private readonly tokens: BlockTokenCache,
  ) {
    this.#queue = [...script];
  }

  /** How many scripted responses are still queued. */
  get remaining(): number {
    return this.#queue.length;
  }

  /** Appends responses to the script. */
  script(entries: readonly ScriptEntry[]): void {
    this.#queue.push(...entries);
  }

  /** The message for a validated request arriving at `at`; throws {@link HttpError} for what the API would refuse. */
  create(params: MessageCreateParamsBase, at: number): CreatedMessage {
    const wantsDiagnostics = params.diagnostics !== undefined && params.diagnostics !== null;
    const previousId = params.diagnostics?.previous_message_id;
    const prompt = promptTokens(params, this.tokens);
    const print = fingerprint(params, prompt);
    const diagnostics = typeof previousId === 'string' ? diagnose(this.#fingerprints.get(previousId), print) : null;

    const response = params.max_tokens === 0 ? undefined : this.#peek(params);
    const outcome = this.#usage(params, at);
    let scripted: ReturnType<typeof materialize>;
    if (response === undefined) {
      // Cache pre-warming (max_tokens 0): prefill only, no output, nothing taken from the script.
      scripted = { content: [], stop_reason: 'max_tokens', stop_sequence: null, output_tokens: 0 };
    } else {
      this.#take();
      scripted = materialize(response, () => `toolu_fake_${++this.#toolIds}`);
    }
    const u = outcome.usage;
    const output_tokens =
      scripted.output_tokens ??
      Math.max(
        1,
        scripted.content.reduce((n, b) => n + this.tokens.tokens(b), 0),
      );
    const id = `msg_fake_${++this.#messages}`;
    if (wantsDiagnostics) this.#fingerprints.set(id, print);
    const message: Message = {
      id,
      type: 'message',
      role: 'assistant',
      model: scripted.model ?? params.model,
      content: scripted.content,
      stop_reason: scripted.stop_reason,
      stop_sequence: scripted.stop_sequence,
      stop_details: null,
      container: null,
      diagnostics,
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        cache_creation: {
          ephemeral_5m_input_tokens: u.cache_creation.ephemeral_5m_input_tokens,
          ephemeral_1h_input_tokens: u.cache_creation.ephemeral_1h_input_tokens,
        },
        output_tokens,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: 'standard',
        inference_geo: null,
        speed: null,
      },
    };
    return outcome.explain === undefined ? { message } : { message, explain: outcome.explain };
  }

  /**
   * Takes the next scripted answer for another provider's route (OpenAI,
   * Converse): the same queue, so one script serves a conversation whatever
   * door its requests come through. `params` is the request as the
   * simulator reads it (what a script function receives).
   */
  take(params: MessageCreateParamsBase): ReturnType<typeof materialize> {
    const response = this.#peek(params);
    this.#take();
    return materialize(response, () => `toolu_fake_${++this.#toolIds}`);
  }

  /** The next scripted response, without taking it; a scripted error is taken and thrown. */
  #peek(params: MessageCreateParamsBase): Exclude<ScriptedResponse, ScriptedError> {
    const entry = this.#queue[0];
    if (entry === undefined) {
      throw new HttpError(
        500,
        'api_error',
        `fake server: the script is exhausted after ${this.#played} response(s); add responses with server.script(...) or the script option`,
        { 'x-should-retry': 'false' },
      );
    }
    const answer = typeof entry === 'function' ? entry(params, this.#played) : entry;
    if (isScriptedError(answer)) {
      // An API error means the request was not processed: the usage model never sees it.
      this.#take();
      throw new HttpError(answer.error.status, answer.error.type, answer.error.message);
    }
    return answer;
  }

  #take(): void {
    this.#queue.shift();
    this.#played++;
  }

  #usage(params: MessageCreateParamsBase, at: number): UsageOutcome {
    let outcome: UsageOutcome | UsageRejection;
    try {
      outcome = this.usageModel.send(params, at);
    } catch (e) {
      // The simulator knows models by profile; the API answers an unknown model with a 404.
      if (e instanceof UnknownModelError) throw new HttpError(404, 'not_found_error', `model: ${params.model}`);
      throw e;
    }
    // A refusal by the usage model leaves the script where it was, like any other 400.
    if (outcome.rejected) throw new HttpError(400, 'invalid_request_error', outcome.rejected.message);
    return outcome;
  }
}

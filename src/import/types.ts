/**
 * Importers: converters from logs teams already have into session traces
 * (docs/trace-format.md). Declarations only; see formats.ts for the registry
 * and docs/import.md for how to add a format.
 */

/** One non-blank input line, parsed. */
export interface SourceLine {
  /** 1-based physical line in the input file. */
  readonly line: number;
  readonly value: unknown;
}

/** A trace event as written to the file: the format's fields, plus optional extras the reader ignores. */
export type WireEvent = { readonly type: string } & Record<string, unknown>;

/** One trace an import produced (a log can hold several conversations; a transcript, subagents). */
export interface ImportedTrace {
  /** `main` for the primary conversation; otherwise a short name (`agent-a748733`, `conversation-2`). */
  readonly name: string;
  readonly events: readonly WireEvent[];
  /** For each event, the input line it came from (0 for synthesized events): errors name it. */
  readonly sources: readonly number[];
}

/** What a format produced: the traces and what the reader of the result should know. */
export interface ImportResult {
  readonly traces: readonly ImportedTrace[];
  /** Things filled in, skipped or repaired, one line each (e.g. "envelope estimated: …"). */
  readonly warnings: readonly string[];
}

/** An input format. */
export interface ImportFormat {
  /** The `--from` name. */
  readonly id: string;
  readonly description: string;
  /** Whether the first parsed line looks like this format (used when `--from` is not given). */
  detect(first: unknown): boolean;
  /**
   * Converts the lines. Throws {@link ImportError} (naming the line) for a line it
   * cannot read; everything it fills in or skips goes into `warnings`.
   */
  convert(lines: readonly SourceLine[], file: string): ImportResult;
}

import { CachepointError } from '../errors.js';
import type { TraceRule } from './types.js';

/**
 * A trace line breaks the format. The message names the place
 * (`file:line[:column]: `), what is wrong and what was expected, e.g.
 * `fixtures/x.jsonl:17: tool_results answers unknown tool_use id "toolu_9" (open ids: toolu_1, toolu_2)`.
 */
export class TraceParseError extends CachepointError {
  /** The file name as given to the reader, or undefined for in-memory text. */
  readonly file: string | undefined;
  /** 1-based physical line (blank lines count). */
  readonly line: number;
  /** 1-based column, when known (JSON syntax errors). */
  readonly column: number | undefined;
  /** Which rule of the format was broken. */
  readonly rule: TraceRule;
  /** The message without the location prefix. */
  readonly reason: string;

  constructor(rule: TraceRule, reason: string, where: { file?: string | undefined; line: number; column?: number | undefined }, cause?: unknown) {
    const place = `${where.file ?? 'line'}${where.file === undefined ? ' ' : ':'}${where.line}${where.column === undefined ? '' : `:${where.column}`}`;
    super('trace_parse', `${place}: ${reason}`, cause === undefined ? undefined : { cause });
    this.file = where.file;
    this.line = where.line;
    this.column = where.column;
    this.rule = rule;
    this.reason = reason;
  }
}

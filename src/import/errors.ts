import { CachepointError } from '../errors.js';

/**
 * An input line an importer cannot read. The message starts with `file:line: `
 * and says what was expected, e.g.
 * `proxy.jsonl:12: expected {"request": {...}, "response": {...}}, got an array`.
 */
export class ImportError extends CachepointError {
  readonly file: string;
  readonly line: number;
  /** The message without the location prefix. */
  readonly reason: string;

  constructor(file: string, line: number, reason: string) {
    super('import_parse', `${file}:${line}: ${reason}`);
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}

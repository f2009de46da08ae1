/**
 * The fake Converse route's checks of `document` blocks (in a message, or in a tool result's content), as Bedrock
 * states them in its API reference (docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html
 * and API_runtime_DocumentSource.html, read 2026-12-02): a name of 1 to 200 characters, only letters, digits,
 * single whitespace, hyphens, parentheses and square brackets; a format of the listed ones when given; a source that
 * is exactly one of bytes, text, content or s3Location. A mapping that loses or alters a document's name, format or
 * source fails here as it would on Bedrock.
 */
import { HttpError } from './fake-server-http.js';

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const FORMATS = ['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md'];
const SOURCES = ['bytes', 'text', 'content', 's3Location'];
/** Letters, digits, hyphens, parentheses, square brackets, and whitespace never twice in a row. */
const NAME = /^(?!.*\s\s)[\p{L}\p{N}\s\-()[\]]{1,200}$/u;

/** Why Bedrock refuses this document, or undefined. `where` is its path in the request (`messages.0.content.1.document`). */
function documentIssue(d: Obj, where: string): string | undefined {
  if (typeof d.name !== 'string' || !NAME.test(d.name))
    return `${where}.name: the name must be 1 to 200 characters: letters, digits, single whitespace characters, hyphens, parentheses and square brackets (got ${JSON.stringify(d.name)})`;
  if (d.format !== undefined && !FORMATS.includes(d.format as string))
    return `${where}.format: ${JSON.stringify(d.format)} is not one of ${FORMATS.join(', ')}`;
  const members = isObj(d.source) ? Object.keys(d.source).filter((k) => SOURCES.includes(k)) : [];
  if (members.length !== 1) return `${where}.source: exactly one of ${SOURCES.join(', ')} is required`;
  return undefined;
}

/**
 * Throws Bedrock's 400 for the first document of the request's messages that it refuses.
 *
 * @throws {HttpError} `ValidationException` naming the document's path
 */
export function checkConverseDocuments(messages: readonly unknown[]): void {
  messages.forEach((m, i) => {
    const content = isObj(m) && Array.isArray(m.content) ? m.content : [];
    content.forEach((c: unknown, j) => {
      if (!isObj(c)) return;
      const at = `messages.${i}.content.${j}`;
      const parts = isObj(c.toolResult) && Array.isArray(c.toolResult.content) ? (c.toolResult.content as unknown[]) : [];
      const found = [
        ...(isObj(c.document) ? [[c.document, `${at}.document`] as const] : []),
        ...parts.flatMap((p, k) => (isObj(p) && isObj(p.document) ? [[p.document, `${at}.toolResult.content.${k}.document`] as const] : [])),
      ];
      for (const [d, where] of found) {
        const issue = documentIssue(d, where);
        if (issue !== undefined) throw new HttpError(400, 'ValidationException', issue);
      }
    });
  });
}

/** The one escape of the report: every string that came from a trace goes through it before it reaches HTML. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/**
 * JSON for a `<script type="application/json">` block: every `<` becomes `\u003c`
 * (so no `</script>` or `<!--` can end or alter the block), and the two line
 * separators JavaScript once treated as newlines are escaped as well.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

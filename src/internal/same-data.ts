/**
 * A structural compare of plain data that says true only when both values
 * serialize to the same JSON: primitives by `===`, arrays element by element,
 * plain objects key by key in the same order. Strings compare by `===` (the
 * same string object is one pointer compare), nothing is stringified.
 */

const OBJECT_PROTO = Object.prototype;

/**
 * Whether `a` and `b` are the same plain data (so `JSON.stringify(a) ===
 * JSON.stringify(b)`). False for anything it cannot vouch for: NaN, class
 * instances (a Date or URL serializes through toJSON), a different key order,
 * a key present on one side only (even with the value undefined). `skip` names
 * a key left out of the compare on both sides (e.g. `cache_control`).
 */
export function sameData(a: unknown, b: unknown, skip?: string): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i], skip)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const proto = Object.getPrototypeOf(a);
  if ((proto !== OBJECT_PROTO && proto !== null) || Object.getPrototypeOf(b) !== proto) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < kx.length && kx[i] === skip) i++;
    while (j < ky.length && ky[j] === skip) j++;
    if (i === kx.length || j === ky.length) return i === kx.length && j === ky.length;
    const k = kx[i]!;
    if (k !== ky[j] || !sameData(x[k], y[k], skip)) return false;
    i++;
    j++;
  }
}

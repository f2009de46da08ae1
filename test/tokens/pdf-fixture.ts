/**
 * A real (minimal, valid-structure) PDF with `pages` page objects and `padding` bytes of image-like stream data:
 * the bytes a user's scanned or illustrated PDF carries, which the model never sees as text. Base64.
 */
export function pdf(pages: number, padding: number): string {
  return pdfBytes(pages, padding).toString('base64');
}

/** {@link pdf}'s bytes; `lead` is written after the header line (to move the page objects by a few bytes). */
export function pdfBytes(pages: number, padding: number, lead = ''): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    `2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj\n`,
    ...Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n`),
  ];
  // Deterministic pseudo-random bytes (an image stream), so the base64 is not a repeated pattern.
  const bytes = new Uint8Array(padding);
  let x = 12345;
  for (let i = 0; i < padding; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  const head = Buffer.from(`%PDF-1.4\n${lead}${objects.join('')}${pages + 3} 0 obj\n<< /Length ${padding} >>\nstream\n`, 'latin1');
  const tail = Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
  return Buffer.concat([head, Buffer.from(bytes), tail]);
}

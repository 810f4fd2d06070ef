import path from 'node:path';
import { invalid } from '../errors.js';

/** How many leading bytes of an upload decide its content type (Go's http.DetectContentType reads 512; Gitea passes 1024). */
export const sniffLength = 1024;

interface Signature {
  mime: string;
  matches(head: Buffer): boolean;
}

const prefix = (mime: string, bytes: string | number[]): Signature => {
  const wanted = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return { mime, matches: (head) => head.length >= wanted.length && head.subarray(0, wanted.length).equals(wanted) };
};

/** A subset of the WHATWG sniffing table Go implements, in its order; anything else is text or octets. */
const signatures: Signature[] = [
  prefix('application/pdf', '%PDF-'),
  prefix('application/postscript', '%!PS-Adobe-'),
  prefix('text/plain; charset=utf-16be', [0xfe, 0xff]),
  prefix('text/plain; charset=utf-16le', [0xff, 0xfe]),
  prefix('text/plain; charset=utf-8', [0xef, 0xbb, 0xbf]),
  prefix('image/x-icon', [0x00, 0x00, 0x01, 0x00]),
  prefix('image/x-icon', [0x00, 0x00, 0x02, 0x00]),
  prefix('image/bmp', 'BM'),
  prefix('image/gif', 'GIF87a'),
  prefix('image/gif', 'GIF89a'),
  { mime: 'image/webp', matches: (head) => head.length >= 14 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 14) === 'WEBPVP' },
  prefix('image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  prefix('image/jpeg', [0xff, 0xd8, 0xff]),
  prefix('audio/mpeg', 'ID3'),
  prefix('application/ogg', 'OggS\u0000'),
  { mime: 'video/mp4', matches: (head) => head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp' && head.readUInt32BE(0) % 4 === 0 },
  prefix('video/webm', [0x1a, 0x45, 0xdf, 0xa3]),
  prefix('application/x-gzip', [0x1f, 0x8b, 0x08]),
  prefix('application/zip', 'PK\u0003\u0004'),
  prefix('application/x-rar-compressed', 'Rar!\u001a\u0007\u0000'),
  prefix('application/wasm', '\u0000asm'),
];

const markup: [RegExp, string][] = [
  [/^<\?xml/, 'text/xml; charset=utf-8'],
  [/^<(!DOCTYPE HTML|HTML|HEAD|SCRIPT|IFRAME|H1|DIV|FONT|TABLE|A|STYLE|TITLE|B|BODY|BR|P|!--)[ >]/i, 'text/html; charset=utf-8'],
];

/** The content type Go's http.DetectContentType gives these leading bytes (for the types above). */
export function sniffContentType(head: Buffer): string {
  const found = signatures.find((signature) => signature.matches(head));
  if (found) return found.mime;
  const text = head.toString('latin1').replace(/^[\t\n\f\r ]+/, '');
  for (const [pattern, mime] of markup) if (pattern.test(text)) return mime;
  // binary data bytes, as the WHATWG algorithm names them
  const binary = head.some((b) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f));
  return binary ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}

/**
 * Gitea's upload.Verify: a file may be stored when its extension or its sniffed content type is in the comma-separated
 * `allowedTypes` (`.ext`, `type/subtype`, `type/*` or `*` + `/*`); an empty list allows everything. Without content
 * (a rename), only the extension counts. Anything else is a 422.
 */
export function checkAttachmentType(name: string, head: Buffer | null, allowedTypes: string): void {
  const allowed = allowedTypes.replaceAll('|', ',').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  if (allowed.length === 0 || allowed.includes('*/*')) return;
  const extension = path.extname(name).toLowerCase();
  if (extension && allowed.includes(extension)) return;
  if (head && head.length > 1) {
    const mime = sniffContentType(head).split(';')[0].trim();
    for (const entry of allowed) {
      if (entry === mime) return;
      if (/^[a-z]+\/\*$/.test(entry) && mime.startsWith(entry.slice(0, -1))) return;
    }
  }
  throw invalid('This file cannot be uploaded or modified due to a forbidden file extension or type.');
}

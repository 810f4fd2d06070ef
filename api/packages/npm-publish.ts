import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { badRequest, tooLarge } from '../../db/errors.js';
import { storePackageUpload, type PackageUpload, type UploadLimit, type UploadServices } from '../../db/models/packages/blobs.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Frame {
  kind: 'object' | 'array';
  /** The key whose value is being read (objects only). */
  key?: string;
  awaitingKey: boolean;
}

/**
 * Splits the JSON document `npm publish` sends as it arrives: everything but the tarball is kept (at most
 * `limit` bytes), while the base64 string at `_attachments.<file>.data` is decoded on the fly and handed on,
 * its place in the document left as "". Structural characters are ASCII, so scanning bytes is safe in UTF-8.
 */
class PublishScanner {
  private readonly kept: Buffer[] = [];
  private keptSize = 0;
  private readonly stack: Frame[] = [];
  private mode: 'structure' | 'key' | 'string' | 'data' = 'structure';
  private escaped = false;
  private keyBytes: Buffer[] = [];
  private base64Rest = '';
  attachments = 0;
  /** Set once the data string's closing quote went by. */
  dataEnded = false;

  constructor(private readonly limit: number) {}

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.keptSize += bytes.length;
    if (this.keptSize > this.limit) throw tooLarge('the package document is too large');
    this.kept.push(bytes);
  }

  private inData(): boolean {
    const s = this.stack;
    return s.length === 3 && s[0].kind === 'object' && s[0].key === '_attachments' && s[1].kind === 'object' && s[2].kind === 'object' && s[2].key === 'data';
  }

  private decode(text: string, out: Buffer[]): void {
    const all = this.base64Rest + text.replace(/\s+/g, '');
    const usable = all.length - (all.length % 4);
    if (usable > 0) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(all.slice(0, usable))) throw badRequest('the attachment is not base64');
      out.push(Buffer.from(all.slice(0, usable), 'base64'));
    }
    this.base64Rest = all.slice(usable);
  }

  /** Only `\/` and whitespace escapes can stand in base64. */
  private dataEscape(byte: number, out: Buffer[]): void {
    this.escaped = false;
    const next = String.fromCharCode(byte);
    if (next === '/') this.decode('/', out);
    else if (!'nrt'.includes(next)) throw badRequest('the attachment is not base64');
  }

  /** Consumes one chunk of the body; answers the tarball bytes it held. */
  feed(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let i = 0;
    let from = 0;
    while (i < chunk.length) {
      if (this.mode === 'data') {
        if (this.escaped) {
          this.dataEscape(chunk[i], out);
          i++;
          continue;
        }
        // long runs of base64 are sliced out, not walked byte by byte
        let end = chunk.indexOf(QUOTE, i);
        const escape = chunk.indexOf(BACKSLASH, i);
        if (escape >= 0 && (end < 0 || escape < end)) end = escape;
        if (end < 0) {
          this.decode(chunk.toString('latin1', i), out);
          i = chunk.length;
          break;
        }
        this.decode(chunk.toString('latin1', i, end), out);
        if (chunk[end] === BACKSLASH) {
          this.escaped = true;
          i = end + 1;
          continue;
        }
        if (this.base64Rest.length > 0) throw badRequest('the attachment is not base64');
        this.mode = 'structure';
        this.dataEnded = true;
        i = end + 1;
        from = end; // the closing quote is kept
        continue;
      }
      const byte = chunk[i];
      if (this.mode === 'key' || this.mode === 'string') {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          if (this.mode === 'key') {
            this.keyBytes.push(chunk.subarray(from, i));
            const raw = Buffer.concat(this.keyBytes).toString('utf8');
            this.keyBytes = [];
            try {
              this.stack[this.stack.length - 1].key = JSON.parse(`"${raw}"`) as string;
            } catch {
              throw badRequest('the body is not valid JSON');
            }
            this.keep(chunk.subarray(from, i + 1));
            from = i + 1;
          }
          this.mode = 'structure';
        }
        i++;
        continue;
      }
      const top = this.stack[this.stack.length - 1];
      switch (byte) {
        case 0x7b: // {
          this.stack.push({ kind: 'object', awaitingKey: true });
          break;
        case 0x5b: // [
          this.stack.push({ kind: 'array', awaitingKey: false });
          break;
        case 0x7d: // }
        case 0x5d: // ]
          if (!top) throw badRequest('the body is not valid JSON');
          this.stack.pop();
          break;
        case 0x2c: // ,
          if (top?.kind === 'object') top.awaitingKey = true;
          break;
        case 0x3a: // :
          if (top) top.awaitingKey = false;
          break;
        case QUOTE:
          if (top?.kind === 'object' && top.awaitingKey) {
            this.keep(chunk.subarray(from, i + 1));
            from = i + 1;
            this.keyBytes = [];
            this.mode = 'key';
          } else if (this.inData()) {
            if (++this.attachments > 1) throw badRequest('a publish must carry exactly one version and one attachment');
            this.keep(chunk.subarray(from, i + 1));
            this.mode = 'data';
            i++;
            from = i;
            continue;
          } else {
            this.mode = 'string';
          }
          break;
        default:
          break;
      }
      i++;
    }
    if (this.mode === 'key') {
      this.keyBytes.push(chunk.subarray(from));
      this.keep(chunk.subarray(from));
    } else if (this.mode !== 'data') {
      this.keep(chunk.subarray(from));
    }
    return out;
  }

  document(): unknown {
    if (this.mode !== 'structure' || this.stack.length > 0) throw badRequest('the body is not valid JSON');
    try {
      return JSON.parse(Buffer.concat(this.kept).toString('utf8'));
    } catch {
      throw badRequest('the body is not valid JSON');
    }
  }
}

export interface StreamedPublish {
  /** The document with the tarball's base64 replaced by "". */
  document: unknown;
  /** The tarball, in the blob store under a temporary key; null when the document carried none. */
  tarball: PackageUpload | null;
}

/**
 * Reads an npm publish (or deprecation) document, streaming its tarball into the blob store as it is decoded:
 * neither the base64 text nor the tarball is ever held whole. On any failure nothing stays in the store.
 */
export async function readNpmPublish(body: Readable, services: UploadServices, documentLimit: number, tarballLimit: UploadLimit): Promise<StreamedPublish> {
  const scanner = new PublishScanner(documentLimit);
  let tarball: PassThrough | null = null;
  let uploading: Promise<PackageUpload> | null = null;
  try {
    // a refusal must still reach the client: the registry reads the rest of the body past, so it is not destroyed here
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      const pieces = scanner.feed(chunk);
      if (pieces.length > 0 && !tarball) {
        tarball = new PassThrough();
        uploading = storePackageUpload(services, tarball, tarballLimit);
        uploading.catch(() => undefined);
      }
      for (const piece of pieces) {
        if (!tarball!.write(piece)) await Promise.race([once(tarball!, 'drain'), uploading]);
      }
      if (scanner.dataEnded && tarball && !tarball.writableEnded) tarball.end();
    }
    const document = scanner.document();
    if (tarball && !tarball.writableEnded) tarball.end();
    return { document, tarball: uploading ? await uploading : null };
  } catch (error) {
    tarball?.destroy(error as Error);
    const stored = uploading ? await uploading.catch(() => null) : null;
    if (stored) await services.blobs.delete(stored.key);
    throw error;
  }
}

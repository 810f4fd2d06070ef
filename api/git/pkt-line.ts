/** Git's pkt-line framing: a four-hex-digit length (including itself), then the payload; `0000` is a flush. */

export const flushPkt = Buffer.from('0000', 'latin1');

export function encodePkt(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'latin1'), body]);
}

export type Packet = { kind: 'data'; data: Buffer } | { kind: 'flush' } | { kind: 'delim' } | { kind: 'end' };

/** The packet at `offset`, or null when the buffer does not hold all of it yet. Malformed lengths throw. */
export function readPkt(buffer: Buffer, offset: number): { packet: Packet; next: number } | null {
  if (buffer.length - offset < 4) return null;
  const hex = buffer.toString('latin1', offset, offset + 4);
  if (!/^[0-9a-f]{4}$/i.test(hex)) throw new Error(`malformed pkt-line length ${JSON.stringify(hex)}`);
  const length = parseInt(hex, 16);
  if (length === 0) return { packet: { kind: 'flush' }, next: offset + 4 };
  if (length === 1) return { packet: { kind: 'delim' }, next: offset + 4 };
  if (length === 2) return { packet: { kind: 'end' }, next: offset + 4 };
  if (length < 4) throw new Error(`malformed pkt-line length ${length}`);
  if (buffer.length - offset < length) return null;
  return { packet: { kind: 'data', data: buffer.subarray(offset + 4, offset + length) }, next: offset + length };
}

/** Splits a stream of pkt-lines arriving in arbitrary chunks. */
export class PktReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Packet[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const packets: Packet[] = [];
    let offset = 0;
    for (let read = readPkt(this.pending, offset); read; read = readPkt(this.pending, offset)) {
      packets.push(read.packet);
      offset = read.next;
    }
    this.pending = this.pending.subarray(offset);
    return packets;
  }
}

/** Sideband band numbers: 1 carries data, 2 progress text, 3 a fatal error. */
export type Band = 1 | 2 | 3;

/** Wraps `payload` into sideband packets of at most `max` payload bytes each (65515 for side-band-64k, 995 otherwise). */
export function sideband(band: Band, payload: Buffer, max: number): Buffer {
  const packets: Buffer[] = [];
  for (let at = 0; at < payload.length; at += max) {
    packets.push(encodePkt(Buffer.concat([Buffer.from([band]), payload.subarray(at, at + max)])));
  }
  return Buffer.concat(packets);
}

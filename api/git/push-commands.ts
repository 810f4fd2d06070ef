import type { Readable } from 'node:stream';
import { badRequest, tooLarge } from '../../db/errors.js';
import type { RefUpdate } from '../../db/models/code/branch-protection.js';
import { encodePkt, flushPkt, PktReader, readPkt, sideband } from './pkt-line.js';

/** The start of a receive-pack request: the ref updates and the capabilities the client asked for. */
export interface PushRequest {
  commands: RefUpdate[];
  capabilities: Set<string>;
}

const commandLine = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/;

/** Parses the command list (up to its flush-pkt) at the start of `buffer`; null while it is incomplete. */
export function parseCommandList(buffer: Buffer): PushRequest | null {
  const request: PushRequest = { commands: [], capabilities: new Set() };
  let offset = 0;
  for (;;) {
    const read = readPkt(buffer, offset);
    if (!read) return null;
    offset = read.next;
    if (read.packet.kind === 'flush') return request;
    if (read.packet.kind !== 'data') throw new Error('unexpected packet in the command list');
    let line = read.packet.data.toString('utf8');
    const nul = line.indexOf('\0');
    if (nul >= 0) {
      for (const capability of line.slice(nul + 1).trim().split(' ')) if (capability) request.capabilities.add(capability);
      line = line.slice(0, nul);
    }
    line = line.replace(/\n$/, '');
    if (line.startsWith('shallow ')) continue;
    const match = commandLine.exec(line);
    if (!match) throw new Error(`malformed push command: ${line.slice(0, 200)}`);
    request.commands.push({ oldSha: match[1], newSha: match[2], ref: match[3] });
  }
}

/**
 * Reads a receive-pack request body until its command list is complete, without consuming the pack behind it:
 * the bytes read so far come back as `head` (to be replayed to git) and the stream is left paused.
 */
export function readCommandList(body: Readable, limit: number): Promise<{ head: Buffer; request: PushRequest }> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const finish = (outcome: () => void): void => {
      body.pause();
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      let request: PushRequest | null;
      try {
        request = parseCommandList(head);
      } catch (error) {
        finish(() => reject(badRequest((error as Error).message)));
        return;
      }
      if (request) finish(() => resolve({ head, request: request! }));
      else if (head.length > limit) finish(() => reject(tooLarge('push command list too large')));
    };
    const onEnd = (): void => finish(() => reject(badRequest('the request ended before its command list')));
    const onError = (error: Error): void => finish(() => reject(badRequest(`unreadable request body: ${error.message}`)));
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}

/** The largest sideband payload the client accepts, or 0 when it did not ask for sideband. */
export function sidebandSize(capabilities: Set<string>): number {
  if (capabilities.has('side-band-64k')) return 65515;
  if (capabilities.has('side-band')) return 995;
  return 0;
}

/**
 * receive-pack's answer for a push refused before git ran: each message as remote text, and a report that
 * rejects every ref (a push is refused as a whole, as a pre-receive hook refuses it), with the reason per ref.
 */
export function refusalResponse(request: PushRequest, refusals: Map<string, string>): Buffer {
  const max = sidebandSize(request.capabilities);
  const messages = [...new Set(refusals.values())];
  const parts: Buffer[] = [];
  if (request.capabilities.has('report-status') || request.capabilities.has('report-status-v2')) {
    if (max) parts.push(sideband(2, Buffer.from(messages.map((m) => `Hearth: ${m}\n`).join('')), max));
    const report = Buffer.concat([
      encodePkt('unpack ok\n'),
      ...request.commands.map((c) => encodePkt(`ng ${c.ref} ${refusals.get(c.ref) ?? 'another ref in this push was refused'}\n`)),
      flushPkt,
    ]);
    parts.push(max ? sideband(1, report, max) : report);
  } else if (max) parts.push(sideband(3, Buffer.from(`${messages.join('; ')}\n`), max));
  else parts.push(encodePkt(`ERR ${messages.join('; ')}\n`));
  if (max) parts.push(flushPkt);
  return Buffer.concat(parts);
}

/** Follows receive-pack's answer (inside band 1 when sideband is used) to learn which refs it updated. */
export class ReportReader {
  /** Refs reported `ok`. */
  readonly updated = new Set<string>();
  /** Whether a report-status arrived at all; without one the refs on disk tell. */
  reported = false;
  private readonly outer = new PktReader();
  private readonly inner = new PktReader();
  private broken = false;

  constructor(private readonly sidebandUsed: boolean) {}

  feed(chunk: Buffer): void {
    if (this.broken) return;
    try {
      for (const packet of this.outer.push(chunk)) {
        if (packet.kind !== 'data') continue;
        if (!this.sidebandUsed) this.line(packet.data);
        else if (packet.data[0] === 1) {
          for (const inner of this.inner.push(packet.data.subarray(1))) if (inner.kind === 'data') this.line(inner.data);
        }
      }
    } catch {
      this.broken = true;
      this.reported = false;
    }
  }

  private line(data: Buffer): void {
    const text = data.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('unpack ')) this.reported = true;
    else if (text.startsWith('ok ')) this.updated.add(text.slice(3));
  }
}

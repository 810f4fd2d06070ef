import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';

/**
 * A DNS server of the drill's own on loopback (UDP): it answers A and AAAA queries for the names it is given, from a
 * list of answers per name (each query takes the next, the last one repeats), so that a drill can make a name resolve
 * to any address and change its answer between two lookups (rebinding). Other names get NXDOMAIN.
 */
export interface DrillDns {
  /** `127.0.0.1:PORT`, for HEARTH_TEST_DNS_SERVERS. */
  server: string;
  /** The answers of `name`, one list of addresses per query in turn. */
  set(name: string, answers: string[][]): void;
  /** A and AAAA queries seen for `name` (a lookup asks both). */
  queries(name: string): number;
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (message[at] !== 0) {
    const length = message[at];
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const part = (text: string): string[] => (text ? text.split(':') : []);
  const hex = (groups: string[]): number[] => groups.flatMap((group) => {
    if (isIPv4(group)) { const [a, b, c, d] = group.split('.').map(Number); return [(a << 8) | b, (c << 8) | d]; }
    return [parseInt(group, 16)];
  });
  const before = hex(part(head));
  const after = hex(part(tail));
  const groups = address.includes('::') ? [...before, ...Array(8 - before.length - after.length).fill(0), ...after] : before;
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}

export async function startDrillDns(): Promise<DrillDns> {
  const answers = new Map<string, string[][]>();
  const served = new Map<string, number>();
  const counts = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    const id = message.readUInt16BE(0);
    const { name, end } = readName(message, 12);
    const type = message.readUInt16BE(end);
    const question = message.subarray(12, end + 4);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const list = answers.get(name);
    let records: Buffer[] = [];
    if (list && (type === 1 || type === 28)) {
      // a lookup asks A and AAAA side by side: each type takes its turns apart, so both see the lookup's answer
      const turn = served.get(`${name}/${type}`) ?? 0;
      served.set(`${name}/${type}`, turn + 1);
      const addresses = list[Math.min(turn, list.length - 1)];
      records = addresses.filter((address) => (type === 1) === isIPv4(address)).map((address) => {
        const data = type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
        const record = Buffer.alloc(12);
        record.writeUInt16BE(0xc00c, 0);
        record.writeUInt16BE(type, 2);
        record.writeUInt16BE(1, 4);
        record.writeUInt32BE(0, 6);
        record.writeUInt16BE(data.length, 10);
        return Buffer.concat([record, data]);
      });
    }
    const header = Buffer.alloc(12);
    header.writeUInt16BE(id, 0);
    header.writeUInt16BE(0x8180 | (list ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    socket.send(Buffer.concat([header, question, ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    set(name, list) {
      answers.set(name.toLowerCase(), list);
      for (const type of [1, 28]) served.delete(`${name.toLowerCase()}/${type}`);
    },
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

import { SMTPServer } from 'smtp-server';
import type { ExecutionContext } from 'ava';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP listener on a free port that keeps every message it receives. */
export async function startSmtp(t: ExecutionContext): Promise<{ port: number; mails: ReceivedMail[]; waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail> }> {
  const mails: ReceivedMail[] = [];
  const waiters: Array<(mail: ReceivedMail) => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        };
        mails.push(mail);
        waiters.splice(0).forEach((resolve) => resolve(mail));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port,
    mails,
    /** The first mail, received or still to come, that matches. */
    waitFor(match, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const found = mails.find(match);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error('no matching mail arrived')), timeoutMs);
        const check = (mail: ReceivedMail): void => {
          if (!match(mail)) return void waiters.push(check);
          clearTimeout(timer);
          resolve(mail);
        };
        waiters.push(check);
      });
    },
  };
}

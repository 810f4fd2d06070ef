import type { Server } from 'node:http';

/**
 * Answers `Expect: 100-continue` once the body is first read, as Go's server (and so Gitea) does, rather than at once
 * as Node does: a request refused before its body is read (a 401, a 413 for its Content-Length) is answered without
 * the client sending the body at all. curl and Maven ask so before large uploads.
 */
export function continueOnFirstRead(server: Server): void {
  server.on('checkContinue', (req, res) => {
    const watch = (event: string | symbol): void => {
      if (event !== 'data' && event !== 'readable') return;
      req.off('newListener', watch);
      if (!res.headersSent) res.writeContinue();
    };
    req.on('newListener', watch);
    server.emit('request', req, res);
  });
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** What the receiver does with request n (0-based): answer a status, or hang without answering. */
export type Behaviour = (n: number) => number | 'hang';

/** A real HTTP server on 127.0.0.1 (port 0) that records what it receives. */
export async function startReceiver(behaviour: Behaviour = () => 204) {
  const received: Received[] = [];
  let current = behaviour;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const n = received.length;
      received.push({ headers: req.headers as Record<string, string>, body });
      const what = current(n);
      if (what === 'hang') return;
      res.writeHead(what, { 'content-type': 'text/plain' }).end(what < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks?source=test`,
    received,
    set(b: Behaviour) {
      current = b;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

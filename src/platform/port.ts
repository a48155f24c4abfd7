import net from 'node:net';

/**
 * Whether `host:port` can be listened on now: null, or the reason in one line naming the variable
 * to change. The server asks before its start-up work (migrations, the demo data), so a busy port
 * is said at once instead of as a stack trace seconds later. Port 0 (any free port) always can.
 */
export function portProblem(host: string, port: number): Promise<string | null> {
  if (port === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(listenProblem(err, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

/** A failed listen as one line naming PORT or HOST; the error's own message for anything else. */
export function listenProblem(err: NodeJS.ErrnoException, host: string, port: number): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return `PORT ${port} is already in use on ${host}: stop what listens there, or set PORT to a free port`;
    case 'EACCES':
      return `PORT ${port} on ${host} needs privileges this user does not have: set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (e.g. 127.0.0.1)`;
    default:
      return `cannot listen on ${host}:${port} (HOST, PORT): ${err.message}`;
  }
}

import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { portProblem } from '../../src/platform/port.ts';

describe('the port, checked before the start-up work', () => {
  it('a busy port is one line naming PORT; a free one and port 0 are fine', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen({ host: '127.0.0.1', port: 0 }, r));
    const { port } = taken.address() as net.AddressInfo;
    try {
      assert.equal(
        await portProblem('127.0.0.1', port),
        `PORT ${port} is already in use on 127.0.0.1: stop what listens there, or set PORT to a free port`,
      );
    } finally {
      await new Promise((r) => taken.close(r));
    }
    assert.equal(await portProblem('127.0.0.1', port), null, 'free once closed, and the probe let go of it');
    assert.equal(await portProblem('127.0.0.1', 0), null);
    assert.match(String(await portProblem('192.0.2.1', 3000)), /^HOST 192\.0\.2\.1 is not an address of this machine/);
  });
});

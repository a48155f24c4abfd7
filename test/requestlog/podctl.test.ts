import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podctl, podctlSuite } from '../support/podctl.ts';

describe('podctl request-log', () => {
  const server = podctlSuite('podctl-request-log-', { env: { REQUEST_LOG: 'false' } });

  it('shows, resumes and pauses a running server’s log; REQUEST_LOG=false starts it paused', async () => {
    const shown = await server.run('request-log');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^recording\s+false$/m);
    const resumed = await server.run('request-log', 'resume', '--json');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(JSON.parse(resumed.stdout), { recording: true, buffered: 0, dropped: 0 });
    assert.equal(server.t.s.requestLog.recording, true);
    const paused = await server.run('request-log', 'pause');
    assert.match(paused.stdout, /^recording\s+false$/m);
    assert.equal(server.t.s.requestLog.recording, false);
  });

  it('refuses an unknown state, and a log without a running server', async () => {
    const bad = await server.run('request-log', 'off');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown state "off": pause or resume/);
    const none = await podctl(['request-log', 'pause', '--init'], server.env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no running server/);
  });
});

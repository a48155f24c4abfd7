import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../support/app.ts';
import { podctl, podctlServer } from '../support/podctl.ts';

describe('podctl request-log', () => {
  let t: TestApp;
  let url: string;
  let env: Record<string, string>;
  let close: () => Promise<void>;
  before(async () => {
    ({ t, url, env, close } = await podctlServer('podctl-request-log-', { env: { REQUEST_LOG: 'false' } }));
  });
  after(() => close());

  it('shows, resumes and pauses a running server’s log; REQUEST_LOG=false starts it paused', async () => {
    const shown = await podctl(['--url', url, 'request-log'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^recording\s+false$/m);
    const resumed = await podctl(['--url', url, 'request-log', 'resume', '--json'], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(JSON.parse(resumed.stdout), { recording: true, buffered: 0, dropped: 0 });
    assert.equal(t.s.requestLog.recording, true);
    const paused = await podctl(['--url', url, 'request-log', 'pause'], env);
    assert.match(paused.stdout, /^recording\s+false$/m);
    assert.equal(t.s.requestLog.recording, false);
  });

  it('refuses an unknown state, and a log without a running server', async () => {
    const bad = await podctl(['--url', url, 'request-log', 'off'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown state "off": pause or resume/);
    const none = await podctl(['request-log', 'pause', '--init'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no running server/);
  });
});

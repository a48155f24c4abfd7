import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('WEBHOOK_RETRY_SCHEDULE', () => {
  it('defaults to 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    assert.deepEqual(loadConfig({}).webhookRetrySchedule, [5, 300, 1800, 7200, 18000, 36000, 36000]);
  });
  it('takes comma-separated seconds', () => {
    assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1, 2,0' }).webhookRetrySchedule, [1, 2, 0]);
  });
  it('refuses what is not a list of whole seconds up to a week', () => {
    for (const bad of ['5,,10', '1.5', '-1', 'soon', '604801', Array(21).fill('1').join(',')]) {
      assert.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }), ConfigError, bad);
    }
  });
});

-- Fair background work. A pool serves the organization it served least recently first
-- (job_turns: the turn number of its last claim per pool), and jobs of one lane (one webhook
-- endpoint) run one at a time: a lane's pending jobs can be pushed back together when its
-- receiver refuses.
ALTER TABLE jobs ADD COLUMN lane text;
CREATE INDEX jobs_lane_pending ON jobs (lane, run_at) WHERE status = 'pending' AND lane IS NOT NULL;
CREATE INDEX jobs_lane_running ON jobs (lane) WHERE status = 'running' AND lane IS NOT NULL;
CREATE INDEX jobs_kind_org_due ON jobs (kind, organization_id, run_at, id) WHERE status = 'pending';
CREATE INDEX jobs_kind_running ON jobs (kind, organization_id) WHERE status = 'running';

CREATE SEQUENCE job_turn_seq;
CREATE TABLE job_turns (
  pool text NOT NULL,
  -- '' is the service's own work (jobs without an organization)
  organization_id text NOT NULL,
  turn bigint NOT NULL,
  PRIMARY KEY (pool, organization_id)
);
